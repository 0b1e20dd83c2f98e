#include "verify/sev_snp/sev_snp_verify.h"

#include <algorithm>
#include <cstring>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "verify/sev_snp/report_signature.h"
#include "verify/sev_snp/vcek_chain.h"
#include "attestation/sev_snp/vcek_extensions.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::sev_snp {
namespace {

VerifyResult fail(const char* step, std::string message) {
  return VerifyResult::fail(step, std::move(message));
}

// Step 4 precondition: the report says which kind of key signed it; the certificate must be of that kind.
VerifyResult check_signing_key(const Report& r, const VcekExtensions& ext) {
  if (r.signature_algo != kSignatureAlgoEcdsaP384Sha384)
    return fail(steps::kSignatureInvalid,
                "SIGNATURE_ALGO " + std::to_string(r.signature_algo) + " is not ECDSA P-384/SHA-384 (1)");
  const bool cert_is_vcek = !ext.hw_id.empty();
  switch (static_cast<SigningKey>(r.signing_key)) {
    case SigningKey::kVcek:
      if (!cert_is_vcek)
        return fail(steps::kSignatureInvalid,
                    "report is signed by a VCEK but the certificate is not a VCEK (no hwID)");
      break;
    case SigningKey::kVlek:
      if (cert_is_vcek)
        return fail(steps::kSignatureInvalid, "report is signed by a VLEK but the certificate is a VCEK");
      break;
    default:
      return fail(steps::kSignatureInvalid, "SIGNING_KEY " + std::to_string(r.signing_key) +
                                                ": the report is not signed by a VCEK or VLEK");
  }
  return VerifyResult::ok();
}

// Step 5: the certificate is the one for this chip at this TCB.
VerifyResult check_tcb_binding(const Report& r, const VcekExtensions& ext) {
  const TcbLayout layout = r.tcb_layout();
  const TcbVersion reported = r.reported();
  if (layout == TcbLayout::kTurin && !ext.has_fmc)
    return fail(steps::kTcbMismatch, "Turin report but the certificate has no fmcSPL extension");
  if (ext.tcb != reported)
    return fail(steps::kTcbMismatch, "certificate TCB (" + to_string(ext.tcb, layout) +
                                         ") differs from REPORTED_TCB (" + to_string(reported, layout) + ")");
  if (!ext.hw_id.empty() && !r.mask_chip_key) {
    const bool turin_id = ext.hw_id.size() == 8;
    if (!(ext.hw_id.size() == r.chip_id.size() || turin_id) ||
        std::memcmp(ext.hw_id.data(), r.chip_id.data(), ext.hw_id.size()) != 0)
      return fail(steps::kTcbMismatch, "certificate hwID differs from the report's CHIP_ID");
  }
  if (r.version >= 3 && !ext.product_name.empty()) {
    const std::string& name = ext.product_name;
    const bool family_19 = name.rfind("Milan", 0) == 0 || name.rfind("Genoa", 0) == 0;
    const bool family_1a = name.rfind("Turin", 0) == 0;
    if ((family_19 && r.cpuid_fam_id != 0x19) || (family_1a && r.cpuid_fam_id != kFamilyTurin))
      return fail(steps::kTcbMismatch, "certificate product " + name + " does not match CPUID family " +
                                           std::to_string(r.cpuid_fam_id));
  }
  return VerifyResult::ok();
}

VerifyResult check_policy(const Report& r, const Policy& policy) {
  if (r.debug_allowed()) return fail(steps::kDebugEnabled, "GUEST_POLICY allows debugging (bit 19 set)");
  if (policy.minimum_tcb && !tcb_at_least(r.reported(), *policy.minimum_tcb))
    return fail(steps::kTcbOutOfDate, "REPORTED_TCB (" + to_string(r.reported(), r.tcb_layout()) +
                                          ") is below the minimum (" +
                                          to_string(*policy.minimum_tcb, r.tcb_layout()) + ")");
  if (!policy.expected_measurements.empty() &&
      std::find(policy.expected_measurements.begin(), policy.expected_measurements.end(), r.measurement) ==
          policy.expected_measurements.end())
    return fail(steps::kMeasurementMismatch,
                "MEASUREMENT " + to_hex(r.measurement) + " is not an expected measurement");
  if (policy.expected_report_data && *policy.expected_report_data != r.report_data)
    return fail(steps::kReportDataMismatch,
                "REPORT_DATA " + to_hex(r.report_data) + " differs from the expected value");
  return VerifyResult::ok();
}

}  // namespace

VerifyResult verify_report(std::span<const uint8_t> bytes, const Endorsements& endorsements,
                           const Policy& policy, const VerifyOptions& options, Report* parsed) {
  // 1. Parse.
  Report report;
  try {
    report = parse_report(bytes);
  } catch (const Error& e) {
    return VerifyResult::fail(e.code(), e.what());
  }
  if (parsed != nullptr) *parsed = report;

  // 2. The endorsing certificate.
  if (endorsements.vcek.empty()) return fail(steps::kCertificateMissing, "no VCEK or VLEK certificate given");
  const crypto::X509Ptr vcek = load_certificate(endorsements.vcek);
  if (!vcek)
    return fail(steps::kChainInvalid, "the VCEK certificate does not parse as one PEM or DER certificate");

  // 3. Chain to a pinned ARK.
  const std::time_t at =
      std::chrono::system_clock::to_time_t(options.at.value_or(std::chrono::system_clock::now()));
  const ChainCheck chain =
      verify_vcek_chain(vcek.get(), endorsements.cert_chain, options.anchors, at, endorsements.crl);
  if (chain.status == ChainStatus::kExpired) return fail(steps::kCollateralExpired, chain.message);
  if (chain.status == ChainStatus::kRevoked) return fail(steps::kRevoked, chain.message);
  if (chain.status == ChainStatus::kCrlInvalid) return fail(steps::kCollateralInvalid, chain.message);
  if (chain.status != ChainStatus::kValid) return fail(steps::kChainInvalid, chain.message);
  std::string error;
  const auto ext = read_vcek_extensions(vcek.get(), error);
  if (!ext) return fail(steps::kChainInvalid, "VCEK: " + error);

  // 4. Signature.
  if (VerifyResult r = check_signing_key(report, *ext); !r.accepted) return r;
  if (!verify_report_signature(bytes, X509_get0_pubkey(vcek.get()), error))
    return fail(steps::kSignatureInvalid, error);

  // 5. The certificate belongs to this chip and TCB.
  if (VerifyResult r = check_tcb_binding(report, *ext); !r.accepted) return r;

  // 6–9. Policy.
  return check_policy(report, policy);
}

Endorsements endorsements_from(const CertTable& table) {
  return {table.vcek.empty() ? table.vlek : table.vcek, table.ask + table.ark};
}

}  // namespace a3s::power::verify::sev_snp
