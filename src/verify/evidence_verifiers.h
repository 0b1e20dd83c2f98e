// The per-TEE halves of verify_evidence (a3s/power/verify.h): each maps the facade's options onto its
// library's options and its result onto a Report.
#pragma once

#include <span>

#include "a3s/power/verify.h"

namespace a3s::power::verify {

// Evidence detected as an SEV-SNP report (verify/sev_snp/sev_snp_verify.h).
Report verify_sev_snp_evidence(std::span<const uint8_t> evidence, const EvidenceOptions& options);

// Evidence detected as a TDX quote (verify/tdx/tdx_verify.h).
Report verify_tdx_evidence(std::span<const uint8_t> evidence, const EvidenceOptions& options);

}  // namespace a3s::power::verify
