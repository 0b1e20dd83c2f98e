// How a3s-power-verify prints a live attestation verdict (AttestationResult).
#pragma once

#include <optional>
#include <string>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify::cli {

// One JSON object (no trailing newline):
//   {"accepted": bool, "failed_step": "..." (rejected only), "message": "..." (rejected only),
//    "tee_type": "sev-snp"|"tdx"|"simulated"|"", "evidence_format": "...", "simulated": bool,
//    "measurement": hex, "model": name, "model_sha256": hex, "nonce": hex, "report_data": hex,
//    "tcb_status": "...", "skipped": [...], "tdx": {...}, "advisory_ids": [...] (TDX evidence that
//    parsed: add_tdx_json), SEV-SNP: "vmpl": N, "minimum_tcb": {...} (as report_json),
//    "tee_policy": "strict"|"development"|"" (the signed claims.runtime.tee_policy; "" before the claims
//    digest verified), "warnings": [...], "checks": [{"name", "passed", "detail"}, ...],
//    RA-TLS accepted only: "ratls_pin": {"sha256": "sha256:<64 hex>", "curl": "sha256//<base64>"}}
// `pin`: the SPKI SHA-256 of the verified RA-TLS key (set only when the attestation was accepted).
std::string attestation_json(const AttestationResult& result, const std::optional<Sha256>& pin = std::nullopt);

// One line per check that ran ("ok   <name>: <detail>" / "FAIL <name>: <detail>"), then the verdict
// line; simulated evidence adds a warning line; TDX evidence then lists its registers (tdx_text).
// With `pin`, two lines name the verified RA-TLS key: "ratls_pin: sha256:<hex>" (a3s-power chat
// --ratls-pin) and "curl_pin: sha256//<base64>" (curl --pinnedpubkey). Each line ends in '\n'.
std::string attestation_text(const AttestationResult& result, const std::optional<Sha256>& pin = std::nullopt);

}  // namespace a3s::power::verify::cli
