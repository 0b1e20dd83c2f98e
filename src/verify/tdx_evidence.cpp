// verify_evidence for TDX quotes: EvidenceOptions → tdx::verify_tdx_quote → Report.
#include <exception>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "verify/evidence_verifiers.h"
#include "verify/tdx/tdx_verify.h"

namespace a3s::power::verify {

Report verify_tdx_evidence(std::span<const uint8_t> evidence, const EvidenceOptions& options) {
  if (!options.vcek.empty())
    throw Error(codes::kInvalidArgument, "a VCEK applies to SEV-SNP reports only; this is a TDX quote");
  if (!options.snp_crl.empty())
    throw Error(codes::kInvalidArgument, "an AMD CRL applies to SEV-SNP reports only; this is a TDX quote");
  if (options.snp_minimum_tcb)
    throw Error(codes::kInvalidArgument, "a minimum SEV-SNP TCB does not apply to a TDX quote");
  if (options.snp_vmpl || options.snp_allow_migration_agent)
    throw Error(codes::kInvalidArgument, "the SEV-SNP VMPL and migration agent options do not apply to a TDX quote");
  tdx::TdxVerifyOptions to;
  if (!options.root.empty()) to.root_pem = options.root;
  if (!options.cert_chain.empty()) to.pck_chain_pem = options.cert_chain;
  if (options.tdx_collateral && !options.collateral_dir.empty())
    throw Error(codes::kInvalidArgument, "give the TDX collateral as a directory or in memory, not both");
  if (options.tdx_collateral) {
    const TdxCollateralData& d = *options.tdx_collateral;
    tdx::TdxCollateral c{d.tcb_info_json, d.qe_identity_json, d.tcb_sign_chain_pem, {}};
    // The order of load_tdx_collateral_dir: root CA CRL, then the PCK CA CRL.
    for (const std::string* crl : {&d.root_ca_crl_der, &d.pck_ca_crl_der})
      if (!crl->empty()) c.crls_der.emplace_back(crl->begin(), crl->end());
    to.collateral = std::move(c);
  } else if (!options.collateral_dir.empty()) {
    try {
      to.collateral = tdx::load_tdx_collateral_dir(options.collateral_dir);
    } catch (const std::exception& e) {
      throw Error(codes::kIo, e.what());
    }
  }
  to.skip_tcb_check = options.no_tcb_check;
  if (!options.tdx_accepted_tcb_statuses.empty())
    to.accepted_tcb_statuses = options.tdx_accepted_tcb_statuses;
  to.at = options.at;
  to.expected_mrtd = options.expected_measurements;
  to.expected_rtmr = options.tdx.expected_rtmr;
  to.expected_mr_config_id = options.tdx.expected_mr_config_id;
  to.expected_mr_owner = options.tdx.expected_mr_owner;
  to.rejected_advisory_ids = options.tdx.rejected_advisory_ids;
  to.reject_advisory_statuses = options.tdx.reject_advisory_statuses;
  to.expected_report_data = options.expected_report_data;

  tdx::TdxVerifyDetails details;
  const VerifyResult result = tdx::verify_tdx_quote(evidence, to, &details);

  Report r;
  r.tee_type = TeeType::kTdx;
  r.accepted = result.accepted;
  r.failed_step = result.failed_step;
  r.message = result.message;
  if (details.quote) {
    r.measurement = to_hex(details.quote->body.mr_td);
    r.report_data = to_hex(details.quote->body.report_data);
    const tdx::TdReportBody& b = details.quote->body;
    TdxMeasurements m;
    m.mr_td = to_hex(b.mr_td);
    for (size_t i = 0; i < 4; ++i) m.rtmr[i] = to_hex(b.rtmr[i]);
    m.mr_config_id = to_hex(b.mr_config_id);
    m.mr_owner = to_hex(b.mr_owner);
    m.mr_owner_config = to_hex(b.mr_owner_config);
    r.tdx = std::move(m);
  }
  r.advisory_ids = details.advisory_ids;
  r.tcb_status = details.tcb_status.empty() ? "unknown" : details.tcb_status;
  if (options.no_tcb_check) r.skipped.push_back("tcb");
  if (!to.collateral || to.collateral->crls_der.empty()) r.skipped.push_back("crl");
  return r;
}

}  // namespace a3s::power::verify
