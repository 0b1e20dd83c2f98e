// verify_evidence: detect the evidence type and run that TEE's verifier.
#include "a3s/power/error.h"
#include "a3s/power/verify.h"
#include "verify/evidence_verifiers.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify {

Report verify_evidence(std::span<const uint8_t> evidence, const EvidenceOptions& options) {
  switch (detect_tee_type(evidence)) {
    case TeeType::kSevSnp:
      if (!options.tdx.empty())
        throw Error(codes::kInvalidArgument,
                    "RTMR, MRCONFIGID, MROWNER and advisory policies apply to TDX quotes only; this is an "
                    "SEV-SNP report");
      return verify_sev_snp_evidence(evidence, options);
    case TeeType::kTdx:
      return verify_tdx_evidence(evidence, options);
    case TeeType::kUnknown:
      break;
  }
  Report r;
  r.failed_step = steps::kMalformedEvidence;
  r.message =
      "neither an SEV-SNP report (1184 bytes, version 2-5) nor a TDX quote (version 4/5, TEE type 0x81); " +
      std::to_string(evidence.size()) + " bytes";
  r.tcb_status = "unknown";
  return r;
}

}  // namespace a3s::power::verify
