#include "a3s-power-verify/receipt_command.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "a3s/power/error.h"
#include "http_client/server_error.h"
#include "a3s-power-verify/exit_status.h"
#include "a3s-power-verify/hex_arg.h"
#include "a3s-power-verify/non_empty_arg.h"
#include "a3s-power-verify/read_file.h"
#include "a3s-power-verify/report_output.h"

namespace a3s::power::verify::cli {

CLI::App* add_receipt_command(CLI::App& app, ReceiptArgs& a) {
  const CLI::Validator& kNonEmpty = non_empty();
  CLI::App* cmd = app.add_subcommand(
      "receipt", "Verify a response's signed receipt against a saved attestation of the same server boot (offline)");
  cmd->add_option("--attestation", a.attestation, "A GET /v1/attestation response body, as received")
      ->required()
      ->check(kNonEmpty);
  cmd->add_option("--receipt", a.receipt, "The response's attestation_receipt object (JSON)")
      ->required()
      ->check(kNonEmpty);
  cmd->add_option("--response", a.response,
                  "The completion response exactly as received (JSON body or SSE stream): its content must be "
                  "what the receipt signs")
      ->check(kNonEmpty);
  cmd->add_option("--nonce", a.expect.nonce, "The nonce the attestation was fetched with (64 hex; compared when given)")
      ->check(kNonEmpty);
  add_expectation_options(*cmd, a.expect);
  return cmd;
}

int run_receipt(const ReceiptArgs& a) {
  if (a.expect.model.empty()) throw Error(codes::kInvalidArgument, "--model is required");
  if (a.expect.expected_hash.empty())
    throw Error(codes::kInvalidArgument, "--expected-hash sha256:HEX is required (the model's digest)");
  AttestationPolicy policy = policy_from(a.expect);
  std::optional<Nonce> nonce;
  if (!a.expect.nonce.empty()) nonce = parse_hex_array<32>(a.expect.nonce, "--nonce");
  const std::string attestation = read_file_text(a.attestation, "--attestation");
  const std::string receipt = read_file_text(a.receipt, "--receipt");
  std::optional<std::string> response;
  if (!a.response.empty()) response = read_file_text(a.response, "--response");
  OnlineUse use = add_live_endorsements(a.expect.online, attestation, policy);
  const ReceiptResult result =
      verify_receipt(attestation, receipt, response ? std::optional<std::string_view>(*response) : std::nullopt,
                     policy, nonce);
  print_verdict(a.expect.format, receipt_json(result), receipt_text(result));
  if (result.accepted) return kExitAccepted;
  use.forget_after(result.failed_step);
  std::fprintf(stderr, "rejected: %s: %s\n", result.failed_step.c_str(), client::one_line(result.message).c_str());
  return kExitRejected;
}

std::string receipt_json(const ReceiptResult& r) {
  nlohmann::ordered_json j;
  j["accepted"] = r.accepted;
  add_rejection(j, r.accepted, r.failed_step, r.message);
  j["key_id"] = r.key_id;
  j["response_id"] = r.response_id;
  j["object"] = r.object;
  j["stream"] = r.stream;
  j["model"] = r.model;
  j["model_sha256"] = r.model_sha256;
  j["request_sha256"] = r.request_sha256;
  j["prompt_sha256"] = r.prompt_sha256;
  j["output_sha256"] = r.output_sha256;
  j["config_sha256"] = r.config_sha256;
  j["usage"] = {{"prompt_tokens", r.prompt_tokens},
                {"completion_tokens", r.completion_tokens},
                {"total_tokens", r.prompt_tokens + r.completion_tokens},
                {"rounded", r.rounded}};
  j["created"] = r.created;
  j["completed_at"] = r.completed_at;
  j["response_checked"] = r.response_checked;
  j["tee_type"] = r.attestation.tee_type;
  j["simulated"] = r.attestation.simulated;
  j["tee_policy"] = r.attestation.tee_policy;
  j["measurement"] = r.attestation.measurement;
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto& c : r.checks) checks.push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
  j["checks"] = std::move(checks);
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string receipt_text(const ReceiptResult& r) {
  std::string out;
  for (const auto& c : r.checks)
    out += (c.passed ? "ok   " : "FAIL ") + c.name + ": " + client::one_line(c.detail, 1024) + "\n";
  if (r.accepted) {
    out += "accepted: receipt " + client::one_line(r.response_id) + " of model \"" + client::one_line(r.model) +
           "\" (sha256:" + r.model_sha256 + "), signed by receipt key " + r.key_id + " of a " + r.attestation.tee_type +
           " attestation" + (r.response_checked ? ", response content verified" : ", response not given") + "\n";
    if (r.attestation.simulated)
      out += "warning: the evidence is SIMULATED: no hardware attests this server or its receipts\n";
  } else {
    out += "rejected: " + r.failed_step + "\n";
  }
  return out;
}

}  // namespace a3s::power::verify::cli
