// How a3s-power-verify prints a live attestation verdict (AttestationResult).
#pragma once

#include <string>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify::cli {

// One JSON object (no trailing newline):
//   {"accepted": bool, "failed_step": "..." (rejected only), "message": "..." (rejected only),
//    "tee_type": "sev-snp"|"tdx"|"simulated"|"", "evidence_format": "...", "simulated": bool,
//    "measurement": hex, "model": name, "model_sha256": hex, "nonce": hex, "report_data": hex,
//    "tcb_status": "...", "skipped": [...], "tdx": {...}, "advisory_ids": [...] (TDX evidence that
//    parsed: add_tdx_json), SEV-SNP: "vmpl": N, "minimum_tcb": {...} (as report_json),
//    "warnings": [...], "checks": [{"name", "passed", "detail"}, ...]}
std::string attestation_json(const AttestationResult& result);

// One line per check that ran ("ok   <name>: <detail>" / "FAIL <name>: <detail>"), then the verdict
// line; simulated evidence adds a warning line; TDX evidence then lists its registers (tdx_text).
// Each line ends in '\n'.
std::string attestation_text(const AttestationResult& result);

}  // namespace a3s::power::verify::cli
