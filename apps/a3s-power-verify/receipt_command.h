// `a3s-power-verify receipt --attestation FILE --receipt FILE [--response FILE] --model NAME
// --expected-hash sha256:HEX [expectation flags]`: offline verification of a signed receipt
// (docs/receipts.md, a3s/power/verify_receipt.h). --attestation is a GET /v1/attestation body as
// received (from this boot of the server), --receipt the "attestation_receipt" object of a response,
// --response that response exactly as received (one JSON body or the SSE stream). The expectation
// flags are live verification's (attest_command.h add_expectation_options); --nonce HEX, when given,
// must be the nonce the attestation was fetched with. Prints one line per check (or one JSON object
// with --format json) and returns the exit status (exit_status.h: 0 accepted, 3 rejected).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "a3s/power/verify_receipt.h"
#include "a3s-power-verify/attest_command.h"

namespace a3s::power::verify::cli {

struct ReceiptArgs {
  std::string attestation;  // --attestation FILE (required)
  std::string receipt;      // --receipt FILE (required)
  std::string response;     // --response FILE (optional)
  AttestArgs expect;        // --model, --expected-hash, ... and --nonce
};

CLI::App* add_receipt_command(CLI::App& app, ReceiptArgs& args);

// Throws a3s::power::Error "invalid_argument" / "io_error" for usage errors and unreadable files.
int run_receipt(const ReceiptArgs& args);

// One JSON object (no trailing newline): {"accepted", "failed_step" and "message" (rejected only),
// "key_id", "response_id", "object", "stream", "model", "model_sha256", "request_sha256",
// "prompt_sha256", "output_sha256", "config_sha256", "usage": {"prompt_tokens", "completion_tokens",
// "total_tokens", "rounded"}, "created", "completed_at", "response_checked", "tee_type", "simulated",
// "tee_policy", "measurement", "checks": [{"name", "passed", "detail"}]}.
std::string receipt_json(const ReceiptResult& result);
// One line per check ("ok   name: detail" / "FAIL name: detail"), then the verdict line; simulated
// evidence adds a warning line. Each line ends in '\n'.
std::string receipt_text(const ReceiptResult& result);

}  // namespace a3s::power::verify::cli
