// A3S Power signed receipts (docs/receipts.md): checking, offline, that a completion response came
// from an attested server (library a3s_verify; no HTTP code).
//
//   ReceiptResult r = verify_receipt(attestation_body, receipt_json, response_body, policy);
//   if (!r.accepted) refuse(r.failed_step, r.message);
//
// attestation_body: a GET /v1/attestation response body exactly as received (any nonce; give it as
// `nonce` to check that it is the one the client sent). receipt_json: the "attestation_receipt" object
// of a response (schema "a3s-power.receipt.v1", src/attestation/receipt.h). response (optional): the
// chat or text completion response exactly as received, one JSON body or the whole SSE stream.
//
// Checks, in order; the first failure stops verification and names its step (stable strings, also
// the attestation's steps of a3s/power/verify_attestation.h):
//   1. the receipt is one JSON object (no key repeated) of the      malformed_receipt
//      documented members and encodings
//   2. the attestation, as verify_attestation checks it (model,      its steps (nonce_mismatch when
//      expected digest, evidence, measurement, TEE policy; the        `nonce` is given and differs,
//      nonce only when given)                                          simulated_evidence, ...)
//   3. the claims bind a receipt key (claims.receipt) and the         receipt_key_unbound
//      receipt's key_id is its key id: a receipt of another boot
//      or server names another key
//   4. Ed25519 signature over the canonical receipt without          receipt_signature_invalid
//      "signature", with claims.receipt.ed25519_pub
//   5. receipt.model_sha256 = claims.model.sha256 and                receipt_model_mismatch
//      receipt.response.model = claims.model.name
//   6. receipt.config_sha256 = claims.runtime.config_sha256          receipt_config_mismatch
//   With a response:
//   7. it reads as a completion body or stream (verify/receipt/      malformed_completion
//      completion_view.h: strict members, the server's SSE framing)
//   8. its id, object, created, model, system_fingerprint, stream    receipt_output_mismatch
//      or not, usage, any attestation_receipt it carries (must be
//      the receipt given) and SHA-256 of the canonical choices
//      (reassembled from a stream) equal the receipt's
//
// Never throws for anything in the inputs; throws a3s::power::Error like verify_attestation for a bad
// policy ("invalid_argument": empty model name, ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify {

struct ReceiptResult {
  bool accepted = false;
  std::string failed_step;  // empty when accepted
  std::string message;      // one line; empty when accepted
  AttestationResult attestation;  // the attestation's verdict (its checks are also in `checks`)
  // From the receipt once its shape is valid (empty / 0 before).
  std::string key_id;
  std::string response_id, object, model, model_sha256;
  bool stream = false;
  std::string request_sha256, prompt_sha256, output_sha256, config_sha256;
  int64_t prompt_tokens = 0, completion_tokens = 0;
  bool rounded = false;
  int64_t created = 0, completed_at = 0;  // Unix seconds
  bool response_checked = false;          // a response was given and matched
  // "receipt" (its shape), the attestation's checks, then "receipt_key", "receipt_signature",
  // "receipt_model", "receipt_config" and, with a response, "completion" and "output".
  std::vector<AttestationCheck> checks;
};

ReceiptResult verify_receipt(std::string_view attestation_body, std::string_view receipt_json,
                             std::optional<std::string_view> response, const AttestationPolicy& policy,
                             const std::optional<Nonce>& nonce = std::nullopt);

}  // namespace a3s::power::verify
