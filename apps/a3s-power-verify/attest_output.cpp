#include "a3s-power-verify/attest_output.h"

#include <nlohmann/json.hpp>

#include "base/hex.h"
#include "crypto/base64.h"
#include "http_client/server_error.h"
#include "a3s-power-verify/report_output.h"

namespace a3s::power::verify::cli {
namespace {

std::string hex_pin(const Sha256& pin) { return "sha256:" + to_hex(pin); }
std::string curl_pin(const Sha256& pin) { return "sha256//" + crypto::base64_encode(pin); }

}  // namespace

std::string attestation_json(const AttestationResult& r, const std::optional<Sha256>& pin) {
  nlohmann::ordered_json j;
  j["accepted"] = r.accepted;
  add_rejection(j, r.accepted, r.failed_step, r.message);
  j["tee_type"] = r.tee_type;
  j["evidence_format"] = r.evidence_format;
  j["simulated"] = r.simulated;
  j["tee_policy"] = r.tee_policy;  // signed claims.runtime.tee_policy; "" until the claims digest verified
  j["measurement"] = r.measurement;
  j["model"] = r.model;
  j["model_sha256"] = r.model_sha256;
  j["nonce"] = r.nonce;
  j["report_data"] = r.report_data;
  j["tcb_status"] = r.tcb_status;
  j["skipped"] = r.skipped;
  add_tdx_json(j, r.tdx, r.advisory_ids);
  if (r.vmpl) j["vmpl"] = *r.vmpl;
  if (!r.minimum_tcb_source.empty())
    j["minimum_tcb"] = minimum_tcb_json(r.minimum_tcb, r.minimum_tcb_source, r.minimum_tcb_date);
  j["warnings"] = r.warnings;
  if (pin && r.accepted) j["ratls_pin"] = {{"sha256", hex_pin(*pin)}, {"curl", curl_pin(*pin)}};
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto& c : r.checks)
    checks.push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
  j["checks"] = std::move(checks);
  // Server-provided text (model names, messages) may hold invalid UTF-8: replace, never throw.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string attestation_text(const AttestationResult& r, const std::optional<Sha256>& pin) {
  std::string out;
  // Details may quote server-provided text: one printable line each.
  for (const auto& c : r.checks)
    out += (c.passed ? "ok   " : "FAIL ") + c.name + ": " + client::one_line(c.detail, 1024) + "\n";
  if (r.accepted) {
    out += "accepted: " + r.tee_type + " attestation of model \"" + client::one_line(r.model) +
           "\" (sha256:" + r.model_sha256 + "), signed tee_policy " + r.tee_policy + "\n";
    if (r.simulated)
      out +=
          "warning: the evidence is SIMULATED: no hardware attests this server; do not send it "
          "confidential prompts\n";
    if (pin) {
      out += "ratls_pin: " + hex_pin(*pin) + "\n";
      out += "curl_pin: " + curl_pin(*pin) + "\n";
    }
  } else {
    out += "rejected: " + r.failed_step + "\n";
  }
  out += tdx_text(r.tdx, r.advisory_ids);
  if (r.vmpl) out += "vmpl: " + std::to_string(*r.vmpl) + "\n";
  if (!r.minimum_tcb_source.empty())
    out += "minimum_tcb: " + minimum_tcb_text(r.minimum_tcb, r.minimum_tcb_source, r.minimum_tcb_date) + "\n";
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  const TeeType tee = r.evidence_format == "tdx-quote" ? TeeType::kTdx : TeeType::kSevSnp;
  for (const auto& s : r.skipped) out += "skipped: " + describe_skipped(tee, s) + "\n";
  return out;
}

}  // namespace a3s::power::verify::cli
