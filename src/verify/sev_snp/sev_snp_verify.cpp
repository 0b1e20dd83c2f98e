#include "verify/sev_snp/sev_snp_verify.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "crypto/secure_memory.h"
#include "verify/sev_snp/default_minimum_tcb.h"
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
      return fail(steps::kTcbMismatch, "the certificate's productName does not match CPUID family " +
                                           std::to_string(r.cpuid_fam_id));
  }
  return VerifyResult::ok();
}

std::string cpuid_text(const Report& r) {
  char text[48];
  std::snprintf(text, sizeof text, "CPUID family 0x%02x model 0x%02x", r.cpuid_fam_id, r.cpuid_mod_id);
  return text;
}

// Step 3, first half: the product of the report. `certificate_product_name` is the VCEK's productName
// ("" when absent or unreadable). With `need_product` (the pinned anchors are chosen by it) an unknown
// product is a failure; otherwise the product is only compared and reported.
VerifyResult resolve_product(const Report& r, const std::string& certificate_product_name, bool need_product,
                             std::optional<AmdProduct>& product) {
  std::optional<AmdProduct> by_cpuid;
  if (r.version >= 3) {
    by_cpuid = product_from_cpuid(r.cpuid_fam_id, r.cpuid_mod_id);
    if (!by_cpuid && need_product)
      return fail(steps::kChainInvalid, "no AMD product is known for the report's " + cpuid_text(r) +
                                            ": no pinned AMD root applies");
  }
  std::optional<AmdProduct> by_name;
  if (!certificate_product_name.empty()) {
    by_name = product_from_certificate_name(certificate_product_name);
    if (!by_name && need_product)
      return fail(steps::kChainInvalid,
                  "the certificate's productName is not Milan, Genoa or Turin: no pinned AMD root applies");
  }
  if (by_cpuid && by_name && *by_cpuid != *by_name)
    return fail(steps::kChainInvalid, "the report's " + cpuid_text(r) + " is " +
                                          std::string(product_name(*by_cpuid)) + " but the certificate is a " +
                                          std::string(product_name(*by_name)) + " certificate");
  product = by_cpuid ? by_cpuid : by_name;
  // Version 2 reports carry no CPUID: without a productName they are Milan's (as KDS requests are).
  if (!product && r.version < 3 && certificate_product_name.empty()) product = AmdProduct::kMilan;
  if (!product && need_product)
    return fail(steps::kChainInvalid, "the report's product is not known: no pinned AMD root applies");
  return VerifyResult::ok();
}

// Steps 6–9 and the minimum TCB's source, recorded in `details`.
VerifyResult check_guest(const Report& r, const Policy& policy, const std::optional<AmdProduct>& product,
                         VerifyDetails& details) {
  // The minimum is chosen first, so that `details` names it also when an earlier check fails.
  if (policy.minimum_tcb) {
    details.minimum_tcb = policy.minimum_tcb;
    details.minimum_source = MinimumTcbSource::kGiven;
  } else if (policy.default_minimum_tcb && product) {
    details.minimum_tcb = default_minimum_tcb(*product);
    if (details.minimum_tcb) details.minimum_source = MinimumTcbSource::kDefaultTable;
  }
  if (r.debug_allowed()) return fail(steps::kDebugEnabled, "GUEST_POLICY allows debugging (bit 19 set)");
  if ((r.policy & policy_bits::kMigrateMa) != 0 && !policy.allow_migration_agent)
    return fail(steps::kMigrationAgentAllowed,
                "GUEST_POLICY allows a migration agent (MIGRATE_MA, bit 18 set): it could read the guest's "
                "memory");
  if (policy.vmpl && r.vmpl != *policy.vmpl)
    return fail(steps::kVmplMismatch, "the report's VMPL is " + std::to_string(r.vmpl) + ", expected " +
                                          std::to_string(*policy.vmpl));
  if (!policy.minimum_tcb && policy.default_minimum_tcb) {
    if (!details.minimum_tcb)
      return fail(steps::kMinimumTcbUnknown,
                  "the default minimum TCB table (" + std::string(kDefaultMinimumTcbDate) + ") has no entry for " +
                      (product ? std::string(product_name(*product)) : std::string("this product")) +
                      ": give a minimum (--min-tcb)");
  }
  if (details.minimum_tcb && !tcb_at_least(r.reported(), *details.minimum_tcb))
    return fail(steps::kTcbOutOfDate, "REPORTED_TCB (" + to_string(r.reported(), r.tcb_layout()) +
                                          ") is below the " +
                                          (details.minimum_source == MinimumTcbSource::kDefaultTable
                                               ? "default minimum of " + std::string(kDefaultMinimumTcbDate)
                                               : std::string("minimum")) +
                                          " (" + to_string(*details.minimum_tcb, r.tcb_layout()) + ")");
  return VerifyResult::ok();
}

VerifyResult check_policy(const Report& r, const Policy& policy) {
  if (!policy.expected_measurements.empty() &&
      std::find(policy.expected_measurements.begin(), policy.expected_measurements.end(), r.measurement) ==
          policy.expected_measurements.end())
    return fail(steps::kMeasurementMismatch,
                "MEASUREMENT " + to_hex(r.measurement) + " is not an expected measurement");
  if (policy.expected_report_data && !crypto::equal_constant_time(*policy.expected_report_data, r.report_data))
    return fail(steps::kReportDataMismatch,
                "REPORT_DATA " + to_hex(r.report_data) + " differs from the expected value");
  return VerifyResult::ok();
}

}  // namespace

VerifyResult verify_report(std::span<const uint8_t> bytes, const Endorsements& endorsements,
                           const Policy& policy, const VerifyOptions& options, Report* parsed,
                           VerifyDetails* details_out) {
  VerifyDetails local_details;
  VerifyDetails& details = details_out != nullptr ? *details_out : local_details;
  details = {};
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

  // 3. The product, and the chain to its ARK (or to the caller's anchors).
  std::string error;
  const auto unverified_ext = read_vcek_extensions(vcek.get(), error);
  const std::string certificate_product = unverified_ext ? unverified_ext->product_name : std::string();
  if (VerifyResult r = resolve_product(report, certificate_product, !options.anchors, details.product);
      !r.accepted)
    return r;
  const bool vlek = report.signing_key == static_cast<uint8_t>(SigningKey::kVlek);
  const TrustAnchors anchors = options.anchors ? *options.anchors : pinned_amd_anchors(*details.product, vlek);
  const std::time_t at =
      std::chrono::system_clock::to_time_t(options.at.value_or(std::chrono::system_clock::now()));
  const ChainCheck chain = verify_vcek_chain(vcek.get(), endorsements.cert_chain, anchors, at, endorsements.crl);
  if (chain.status == ChainStatus::kExpired) return fail(steps::kCollateralExpired, chain.message);
  if (chain.status == ChainStatus::kRevoked) return fail(steps::kRevoked, chain.message);
  if (chain.status == ChainStatus::kCrlInvalid) return fail(steps::kCollateralInvalid, chain.message);
  if (chain.status != ChainStatus::kValid) return fail(steps::kChainInvalid, chain.message);
  const auto ext = read_vcek_extensions(vcek.get(), error);
  if (!ext) return fail(steps::kChainInvalid, "VCEK: " + error);

  // 4. Signature.
  if (VerifyResult r = check_signing_key(report, *ext); !r.accepted) return r;
  if (!verify_report_signature(bytes, X509_get0_pubkey(vcek.get()), error))
    return fail(steps::kSignatureInvalid, error);

  // 5. The certificate belongs to this chip and TCB.
  if (VerifyResult r = check_tcb_binding(report, *ext); !r.accepted) return r;

  // 6–9. The guest's policy, VMPL and TCB.
  if (VerifyResult r = check_guest(report, policy, details.product, details); !r.accepted) return r;
  // 10–11. The client's expected values.
  return check_policy(report, policy);
}

Endorsements endorsements_from(const CertTable& table) {
  return {table.vcek.empty() ? table.vlek : table.vcek, table.ask + table.ark};
}

}  // namespace a3s::power::verify::sev_snp
