#include "verify/tdx/tdx_verify.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "crypto/openssl.h"
#include "crypto/secure_memory.h"
#include "base/hex.h"
#include "verify/tdx/certificate_chain.h"
#include "verify/tdx/collateral_fields.h"
#include "verify/tdx/ecdsa_p256.h"
#include "verify/tdx/intel_root_ca.h"
#include "verify/tdx/qe_identity.h"
#include "verify/tdx/signed_json.h"
#include "verify/tdx/tcb_evaluation.h"
#include "verify/tdx/tcb_info.h"

namespace a3s::power::verify::tdx {
namespace {

std::span<const uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

bool is_p256(EVP_PKEY* key) {
  char group[64] = {0};
  size_t len = 0;
  return key != nullptr && EVP_PKEY_is_a(key, "EC") &&
         EVP_PKEY_get_group_name(key, group, sizeof group, &len) == 1 && std::string(group) == "prime256v1";
}

// Certificates verified so far, and their owners.
struct Chain {
  std::vector<crypto::X509Ptr> certs;
  size_t leaf_index = 0;  // the PCK chain lists its leaf first; the TCB signing chain may not
  X509* leaf() const { return certs[leaf_index].get(); }
  std::vector<X509*> rest() const {
    std::vector<X509*> out;
    for (size_t i = 0; i < certs.size(); ++i) {
      if (i != leaf_index) out.push_back(certs[i].get());
    }
    return out;
  }
};

bool accepted(const TdxVerifyOptions& o, const std::string& status) {
  return std::find(o.accepted_tcb_statuses.begin(), o.accepted_tcb_statuses.end(), status) !=
         o.accepted_tcb_statuses.end();
}

std::string date_text(std::time_t t) {
  char buf[32] = {0};
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool is_refused_advisory(const TdxVerifyOptions& o, const std::vector<std::string>& ids, std::string& which) {
  auto same = [](const std::string& a, const std::string& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  for (const std::string& id : ids) {
    for (const std::string& refused : o.rejected_advisory_ids) {
      if (same(id, refused)) {
        which = id;
        return true;
      }
    }
  }
  return false;
}

void add_advisories(std::vector<std::string>& out, const std::vector<std::string>& ids) {
  for (const std::string& id : ids)
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
}

// Steps 6–10: collateral (when given), platform TCB, QE identity (always), QE TCB, advisories.
VerifyResult check_collateral_and_qe(const TdxQuote& quote, const PckExtensions& pck, X509* root,
                                     const std::vector<X509_CRL*>& crls, const TdxVerifyOptions& options,
                                     std::time_t at, TdxVerifyDetails& details) {
  const bool check_tcb = !options.skip_tcb_check;
  if (!options.collateral) {
    if (check_tcb) {
      return VerifyResult::fail(steps::kCollateralMissing,
                                "no TCB Info / QE Identity collateral to check the TCB");
    }
    // 8. Without collateral the quoting enclave must still be Intel's TD QE.
    VerifyResult qe = check_qe_identity(intel_td_qe_identity(), quote.qe_report, "Intel's TD QE");
    if (!qe.accepted) qe.message += " (built-in identity; no QE Identity collateral given)";
    return qe;
  }

  // 6. Collateral: the TCB signing chain, Intel's TCB Signing certificate as its leaf, signatures, dates.
  const TdxCollateral& c = *options.collateral;
  Chain signing;
  try {
    signing.certs = parse_pem_certificates(as_bytes(c.tcb_sign_chain_pem));
    // The TCB Signing certificate is the one not self-signed (Intel serves root and signing cert in
    // either order).
    for (size_t i = 0; i < signing.certs.size(); ++i) {
      if (X509_check_issued(signing.certs[i].get(), signing.certs[i].get()) != X509_V_OK) {
        signing.leaf_index = i;
        break;
      }
    }
  } catch (const std::exception& e) {
    return VerifyResult::fail(steps::kCollateralInvalid, std::string("TCB signing chain: ") + e.what());
  }
  VerifyResult chain =
      verify_certificate_chain(signing.leaf(), signing.rest(), root, crls, at, "TCB signing chain");
  if (!chain.accepted) {
    if (chain.failed_step == steps::kChainInvalid) chain.failed_step = steps::kCollateralInvalid;
    return chain;
  }
  if (VerifyResult role = check_tcb_signing_role(signing.leaf(), root); !role.accepted) return role;
  EVP_PKEY* signing_key = X509_get0_pubkey(signing.leaf());
  if (!is_p256(signing_key)) {
    return VerifyResult::fail(steps::kCollateralInvalid, "TCB signing certificate key is not P-256");
  }

  TdxTcbInfo tcb_info;
  QeIdentity qe_identity;
  if (check_tcb) {
    try {
      tcb_info = parse_tdx_tcb_info(verified_json_body(c.tcb_info_json, "tcbInfo", signing_key));
    } catch (const std::exception& e) {
      return VerifyResult::fail(steps::kCollateralInvalid, std::string("TCB Info: ") + e.what());
    }
  }
  try {
    qe_identity = parse_qe_identity(verified_json_body(c.qe_identity_json, "enclaveIdentity", signing_key));
  } catch (const std::exception& e) {
    return VerifyResult::fail(steps::kCollateralInvalid, std::string("QE Identity: ") + e.what());
  }
  struct Window {
    const char* name;
    std::time_t issue, next;
  };
  std::vector<Window> windows;
  if (check_tcb) windows.push_back({"TCB Info", tcb_info.issue_date, tcb_info.next_update});
  windows.push_back({"QE Identity", qe_identity.issue_date, qe_identity.next_update});
  for (const Window& w : windows) {
    if (w.issue > at) {
      return VerifyResult::fail(
          steps::kCollateralExpired,
          std::string(w.name) + " issued " + date_text(w.issue) + ", after " + date_text(at));
    }
    if (w.next < at) {
      return VerifyResult::fail(
          steps::kCollateralExpired,
          std::string(w.name) + " nextUpdate " + date_text(w.next) + " is before " + date_text(at));
    }
  }

  if (!check_tcb) {
    // 8. QE identity from the collateral; its TCB levels are not evaluated.
    return check_qe_identity(qe_identity, quote.qe_report, "QE Identity");
  }

  // 7. Platform (and TDX module) TCB.
  TcbEvaluation platform = evaluate_tdx_tcb(tcb_info, pck, quote.body);
  if (!platform.result.accepted) return platform.result;
  details.tcb_status = platform.tcb_status;
  details.advisory_ids = platform.advisory_ids;
  if (!accepted(options, platform.tcb_status)) {
    return VerifyResult::fail(steps::kTcbOutOfDate,
                              "platform TCB status " + platform.tcb_status + " is not accepted");
  }
  details.tdx_module_tcb_status = platform.module_status;
  if (!platform.module_status.empty() && !accepted(options, platform.module_status)) {
    return VerifyResult::fail(steps::kTcbOutOfDate,
                              "TDX module TCB status " + platform.module_status + " is not accepted");
  }
  // 8–9. QE identity, then its TCB status.
  TcbEvaluation qe = evaluate_qe_identity(qe_identity, quote.qe_report);
  if (!qe.result.accepted) return qe.result;
  details.qe_tcb_status = qe.tcb_status;
  add_advisories(details.advisory_ids, qe.advisory_ids);
  if (!accepted(options, qe.tcb_status)) {
    return VerifyResult::fail(steps::kTcbOutOfDate, "QE TCB status " + qe.tcb_status + " is not accepted");
  }

  // 10. Advisories.
  std::string refused;
  if (is_refused_advisory(options, details.advisory_ids, refused)) {
    return VerifyResult::fail(steps::kAdvisoryRejected,
                              "the TCB level lists advisory " + refused + ", which is refused");
  }
  if (options.reject_advisory_statuses) {
    for (const std::string* status : {&details.tcb_status, &details.tdx_module_tcb_status, &details.qe_tcb_status}) {
      if (is_advisory_status(*status)) {
        std::string ids;
        for (const std::string& id : details.advisory_ids) ids += (ids.empty() ? "" : ", ") + id;
        return VerifyResult::fail(steps::kAdvisoryRejected,
                                  "TCB status " + *status + " needs advisories (" + (ids.empty() ? "none listed" : ids) +
                                      "); advisory statuses are refused");
      }
    }
  }
  return VerifyResult::ok();
}

VerifyResult check_policy(const TdReportBody& body, const TdxVerifyOptions& o) {
  auto any_of = [](const std::vector<Measurement48>& list, const Measurement48& value) {
    return std::find(list.begin(), list.end(), value) != list.end();
  };
  if (!o.expected_mrtd.empty() && !any_of(o.expected_mrtd, body.mr_td)) {
    return VerifyResult::fail(steps::kMeasurementMismatch, "MRTD " + to_hex(body.mr_td) + " is not expected");
  }
  for (size_t i = 0; i < 4; ++i) {
    if (!o.expected_rtmr[i].empty() && !any_of(o.expected_rtmr[i], body.rtmr[i])) {
      return VerifyResult::fail(steps::kMeasurementMismatch,
                                "RTMR" + std::to_string(i) + " " + to_hex(body.rtmr[i]) + " is not expected");
    }
  }
  if (o.expected_mr_config_id && body.mr_config_id != *o.expected_mr_config_id) {
    return VerifyResult::fail(steps::kMeasurementMismatch,
                              "MRCONFIGID " + to_hex(body.mr_config_id) + " is not the expected value");
  }
  if (o.expected_mr_owner && body.mr_owner != *o.expected_mr_owner) {
    return VerifyResult::fail(steps::kMeasurementMismatch,
                              "MROWNER " + to_hex(body.mr_owner) + " is not the expected value");
  }
  if (o.expected_report_data &&
      !crypto::equal_constant_time(*o.expected_report_data, body.report_data)) {
    return VerifyResult::fail(steps::kReportDataMismatch, "REPORTDATA is not the expected value");
  }
  return VerifyResult::ok();
}

}  // namespace

bool is_advisory_status(const std::string& status) {
  return status == "SWHardeningNeeded" || status == "ConfigurationNeeded" ||
         status == "ConfigurationAndSWHardeningNeeded";
}

VerifyResult check_td_attributes(const TdReportBody& body) {
  if (body.debug()) {
    return VerifyResult::fail(steps::kDebugEnabled,
                              "TDATTRIBUTES " + to_hex(body.td_attributes) + " has DEBUG (bit 0) set");
  }
  return VerifyResult::ok();
}

VerifyResult verify_tdx_quote(std::span<const uint8_t> bytes, const TdxVerifyOptions& options,
                              TdxVerifyDetails* details_out) {
  TdxVerifyDetails scratch;
  TdxVerifyDetails& details = details_out ? *details_out : scratch;
  details = TdxVerifyDetails{};
  const std::time_t at = options.at.value_or(std::time(nullptr));

  // 1. Parse.
  try {
    details.quote = parse_tdx_quote(bytes);
  } catch (const TdxQuoteError& e) {
    return VerifyResult::fail(e.step(), e.what());
  }
  const TdxQuote& quote = *details.quote;

  // 2. Quote signature by the attestation key.
  crypto::EvpPkeyPtr attestation_key = p256_public_key(quote.attestation_key);
  if (!attestation_key) {
    return VerifyResult::fail(steps::kSignatureInvalid, "attestation key is not a P-256 point");
  }
  if (!ecdsa_p256_verify(attestation_key.get(), quote.signed_bytes, quote.signature)) {
    return VerifyResult::fail(steps::kSignatureInvalid,
                              "quote signature does not verify with the attestation key");
  }

  // 3. PCK chain to the root.
  Chain roots;
  try {
    roots.certs =
        parse_pem_certificates(as_bytes(options.root_pem ? *options.root_pem : intel_sgx_root_ca_pem()));
  } catch (const std::exception& e) {
    return VerifyResult::fail(steps::kChainInvalid, std::string("root certificate: ") + e.what());
  }
  if (roots.certs.size() != 1) {
    return VerifyResult::fail(steps::kChainInvalid, "root: expected exactly one certificate");
  }
  X509* root = roots.leaf();

  std::string_view chain_pem;
  if (options.pck_chain_pem) {
    chain_pem = *options.pck_chain_pem;
  } else if (quote.pck_cert_data_type == kCertDataPckCertChain) {
    chain_pem = std::string_view(reinterpret_cast<const char*>(quote.pck_cert_data.data()),
                                 quote.pck_cert_data.size());
  } else {
    return VerifyResult::fail(steps::kCertificateMissing,
                              "the quote carries certification data type " +
                                  std::to_string(quote.pck_cert_data_type) +
                                  ", not a PCK certificate chain (type 5); give the chain");
  }
  Chain pck_chain;
  try {
    pck_chain.certs = parse_pem_certificates(as_bytes(chain_pem));
  } catch (const std::exception& e) {
    return VerifyResult::fail(steps::kChainInvalid, std::string("PCK chain: ") + e.what());
  }

  std::vector<crypto::X509CrlPtr> crl_owners;
  std::vector<X509_CRL*> crls;
  if (options.collateral) {
    for (const auto& der : options.collateral->crls_der) {
      try {
        crl_owners.push_back(parse_der_crl(der));
      } catch (const std::exception& e) {
        return VerifyResult::fail(steps::kCollateralInvalid, std::string("CRL: ") + e.what());
      }
      crls.push_back(crl_owners.back().get());
    }
  }
  VerifyResult chain =
      verify_certificate_chain(pck_chain.leaf(), pck_chain.rest(), root, crls, at, "PCK chain");
  if (!chain.accepted) return chain;
  try {
    details.pck = parse_pck_extensions(pck_chain.leaf());
  } catch (const std::exception& e) {
    return VerifyResult::fail(steps::kChainInvalid, e.what());
  }
  EVP_PKEY* pck_key = X509_get0_pubkey(pck_chain.leaf());
  if (!is_p256(pck_key)) return VerifyResult::fail(steps::kChainInvalid, "PCK certificate key is not P-256");

  // 4. QE report: signed by the PCK, binds the attestation key and QE auth data.
  if (!ecdsa_p256_verify(pck_key, quote.qe_report_bytes, quote.qe_report_signature)) {
    return VerifyResult::fail(steps::kQeReportInvalid,
                              "QE report signature does not verify with the PCK key");
  }
  std::vector<uint8_t> bound(quote.attestation_key.begin(), quote.attestation_key.end());
  bound.insert(bound.end(), quote.qe_auth_data.begin(), quote.qe_auth_data.end());
  std::array<uint8_t, 32> digest{};
  unsigned int digest_len = 0;
  if (EVP_Digest(bound.data(), bound.size(), digest.data(), &digest_len, EVP_sha256(), nullptr) != 1) {
    return VerifyResult::fail(steps::kQeReportInvalid, "cannot hash the attestation key");
  }
  const auto& qe_data = quote.qe_report.report_data;
  bool zero_tail = std::all_of(qe_data.begin() + 32, qe_data.end(), [](uint8_t b) { return b == 0; });
  if (!std::equal(digest.begin(), digest.end(), qe_data.begin()) || !zero_tail) {
    return VerifyResult::fail(steps::kQeReportInvalid,
                              "QE report data is not SHA-256(attestation key || QE auth data) || zeros");
  }

  // 5. Debug TDs are not confidential.
  if (VerifyResult attrs = check_td_attributes(quote.body); !attrs.accepted) return attrs;

  // 6–10. Collateral, TCB, QE identity (always), advisories.
  if (options.skip_tcb_check) {
    details.tcb_status = "not_checked";
    details.qe_tcb_status = "not_checked";
  }
  VerifyResult tcb = check_collateral_and_qe(quote, *details.pck, root, crls, options, at, details);
  if (!tcb.accepted) return tcb;

  // 11. Policy.
  return check_policy(quote.body, options);
}

}  // namespace a3s::power::verify::tdx
