// How a3s-power-verify prints a verification Report.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "a3s/power/verify.h"

namespace a3s::power::verify::cli {

// One JSON object (no trailing newline):
//   {"accepted": bool, "tee_type": "sev-snp"|"tdx"|"unknown", "simulated": bool (the chain is the
//    simulated hierarchy's: Report::simulated), "failed_step": "..." (rejected only),
//    "message": "..." (rejected only), "measurement": hex, "report_data": hex, "tcb_status": "...",
//    "skipped": ["tcb", "crl", ...],
//    SEV-SNP only: "product": "Milan"|"Genoa"|"Turin"|"", "vmpl": N (once the report parsed),
//    "minimum_tcb": {"source": "default"|"given"|"none", "tcb": "bl=4 tee=0 snp=27 ucode=222"|"",
//                    "table_date": "2026-12-02" (source default only)},
//    TDX quote that parsed (add_tdx_json): "tdx": {"mrtd", "rtmr0".."rtmr3", "mrconfigid", "mrowner",
//    "mrownerconfig"}, "advisory_ids": [...],
//    "warnings": ["...", ...]}
std::string report_json(const Report& report);

// A few "key: value" lines, each ending in '\n': verdict and TEE ("accepted: SIMULATED sev-snp report"
// and a warning line for simulated evidence), measurement, report_data,
// tcb_status, SEV-SNP product, VMPL and minimum TCB, the TDX registers and advisory IDs (tdx_text),
// warnings ("warning: ..."), and what was skipped.
std::string report_text(const Report& report);

// The minimum TCB a verification applied, as JSON ({"source","tcb"[,"table_date"]}) and as text
// ("bl=4 tee=0 snp=27 ucode=222 (default table of 2026-12-02)", "... (given with --min-tcb)", "none").
nlohmann::ordered_json minimum_tcb_json(const std::string& tcb, const std::string& source, const std::string& date);
std::string minimum_tcb_text(const std::string& tcb, const std::string& source, const std::string& date);

// The keys only a rejected verdict has, in both JSON outputs: "failed_step" and "message", added to
// `j` when `accepted` is false.
void add_rejection(nlohmann::ordered_json& j, bool accepted, const std::string& failed_step,
                   const std::string& message);

// TDX evidence: adds "tdx" (every register, 96 lowercase hex digits each) and "advisory_ids" (the
// matching TCB levels' advisories, possibly empty) to `j`; nothing when `tdx` is unset (SEV-SNP, or a
// quote that did not parse).
void add_tdx_json(nlohmann::ordered_json& j, const std::optional<TdxMeasurements>& tdx,
                  const std::vector<std::string>& advisory_ids);

// The same as lines: "mrtd: HEX", "rtmr0: HEX" .. "rtmr3: HEX", "mrconfigid: HEX", "mrowner: HEX",
// "mrownerconfig: HEX", then "advisory_ids: A, B" when there are any; "" when `tdx` is unset.
std::string tdx_text(const std::optional<TdxMeasurements>& tdx, const std::vector<std::string>& advisory_ids);

// Writes a verdict to stdout, `json` and a newline for --format json and `text` otherwise, and
// flushes it.
void print_verdict(const std::string& format, const std::string& json, const std::string& text);

// A skipped check (Report::skipped: "tcb", "crl") with what it means for evidence of type `tee`.
std::string describe_skipped(TeeType tee, const std::string& check);

}  // namespace a3s::power::verify::cli
