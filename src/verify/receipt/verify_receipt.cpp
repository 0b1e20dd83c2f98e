// verify_receipt: the checks of a3s/power/verify_receipt.h, in its order.
#include "a3s/power/verify_receipt.h"


#include "a3s/power/error.h"

#include "attestation/attestation_response.h"
#include "attestation/receipt.h"
#include "attestation/verify_result.h"
#include "base/canonical_json.h"
#include "base/hex.h"
#include "base/json_unique_keys.h"
#include "crypto/secure_memory.h"
#include "crypto/ed25519.h"
#include "verify/attestation/claims_view.h"
#include "verify/attestation/verify_response.h"
#include "verify/receipt/completion_view.h"
#include "verify/verdict.h"

namespace a3s::power::verify {
namespace {

using nlohmann::json;

using ReceiptVerdict = Verdict<ReceiptResult>;

void summarise(const tee::Receipt& rc, ReceiptResult& r) {
  r.key_id = rc.key_id;
  r.response_id = rc.response.id;
  r.object = rc.response.object;
  r.model = rc.response.model;
  r.model_sha256 = to_hex(rc.model_sha256);
  r.stream = rc.response.stream;
  r.request_sha256 = to_hex(rc.request_sha256);
  r.prompt_sha256 = to_hex(rc.prompt_sha256);
  r.output_sha256 = to_hex(rc.output_sha256);
  r.config_sha256 = to_hex(rc.config_sha256);
  r.prompt_tokens = rc.usage.prompt_tokens;
  r.completion_tokens = rc.usage.completion_tokens;
  r.rounded = rc.usage.rounded;
  r.created = rc.response.created;
  r.completed_at = rc.completed_at;
}

// What in the response differs from the receipt; "" when nothing does.
std::string response_difference(const receipt::CompletionView& v, const tee::ParsedReceipt& p) {
  const tee::Receipt& rc = p.receipt;
  if (v.stream != rc.response.stream)
    return rc.response.stream ? "the receipt is for a stream, the response is one JSON body"
                              : "the receipt is for one JSON body, the response is a stream";
  if (v.id != rc.response.id) return "the response's id differs from the receipt's response.id";
  if (v.object != rc.response.object) return "the response's object differs from the receipt's response.object";
  if (v.created != rc.response.created) return "the response's created differs from the receipt's response.created";
  if (v.model != rc.response.model) return "the response's model differs from the receipt's response.model";
  if (v.system_fingerprint != rc.response.system_fingerprint)
    return "the response's system_fingerprint differs from the receipt's response.system_fingerprint";
  if (v.usage) {
    const json& u = *v.usage;
    if (u["prompt_tokens"] != rc.usage.prompt_tokens || u["completion_tokens"] != rc.usage.completion_tokens ||
        u["total_tokens"] != rc.usage.total_tokens())
      return "the response's usage differs from the receipt's usage";
    const int64_t cached = u.contains("prompt_tokens_details") ? u["prompt_tokens_details"]["cached_tokens"].get<int64_t>() : 0;
    if (cached != rc.prompt_cache_tokens)
      return "the response's cached_tokens differ from the receipt's prompt_cache.cached_tokens";
  }
  if (v.receipt && *v.receipt != p.json) return "the response carries another attestation_receipt than the one given";
  crypto::Sha256Digest output{};
  try {
    output = tee::output_sha256(v.choices);
  } catch (const std::exception&) {
    return "the response's choices cannot be canonicalised (a number out of range)";
  }
  if (!crypto::equal_constant_time(output, rc.output_sha256))
    return "SHA-256 of the response's canonical choices (" + to_hex(output) +
           ") differs from the receipt's output_sha256: the content is not what the server signed";
  return {};
}

}  // namespace

ReceiptResult verify_receipt(std::string_view attestation_body, std::string_view receipt_json,
                             std::optional<std::string_view> response, const AttestationPolicy& policy,
                             const std::optional<Nonce>& nonce) {
  if (policy.model.empty()) throw Error(codes::kInvalidArgument, "the model name to verify is empty");
  ReceiptResult r;
  ReceiptVerdict v(r);

  // 1. The receipt's shape.
  std::string error;
  const std::optional<json> parsed = parse_json_unique_keys(receipt_json, error);
  if (!parsed)
    return v.fail("receipt", steps::kMalformedReceipt,
                  error == kNotJson ? "the receipt is not JSON" : "the receipt repeats a key in a JSON object");
  const std::optional<tee::ParsedReceipt> receipt = tee::parse_receipt(*parsed, error);
  if (!receipt) return v.fail("receipt", steps::kMalformedReceipt, error);
  summarise(receipt->receipt, r);
  v.pass("receipt", std::string(tee::kReceiptSchema) + ", key_id " + r.key_id + ", response " + r.response_id);

  // 2. The attestation.
  r.attestation =
      attestation::verify_response(attestation_body, nonce ? &*nonce : nullptr, policy, /*check_model=*/true);
  for (const auto& c : r.attestation.checks) r.checks.push_back(c);
  if (!r.attestation.accepted) {
    r.failed_step = r.attestation.failed_step;
    r.message = r.attestation.message;
    return r;
  }
  // Verified: the claims can be read again and trusted.
  const auto resp = attestation::parse_attestation_response(attestation_body, error);
  const auto claims = resp ? attestation::read_claims(resp->claims, error) : std::nullopt;
  if (!claims) throw Error(codes::kInternal, "a verified attestation no longer parses");

  // 3. The key is this boot's.
  if (!claims->receipt_public_key)
    return v.fail("receipt_key", steps::kReceiptKeyUnbound,
                  "the attestation's claims bind no receipt key (claims.receipt is missing)");
  if (receipt->receipt.key_id != claims->receipt_key_id)
    return v.fail("receipt_key", steps::kReceiptKeyUnbound,
                  "the receipt names key " + receipt->receipt.key_id + " but the attestation binds key " +
                      claims->receipt_key_id + ": the receipt comes from another boot or server");
  v.pass("receipt_key", "the receipt's key " + r.key_id + " is the receipt key the attestation binds");

  // 4. The signature, over the receipt as received without "signature".
  json unsigned_receipt = receipt->json;
  unsigned_receipt.erase("signature");
  std::string signed_bytes;
  try {
    signed_bytes = canonical_json(unsigned_receipt, JsonValues::kAll);
  } catch (const std::exception& e) {
    return v.fail("receipt_signature", steps::kMalformedReceipt,
                  std::string("the receipt cannot be canonicalised: ") + e.what());
  }
  crypto::Ed25519PublicKey pub{};
  std::copy(claims->receipt_public_key->begin(), claims->receipt_public_key->end(), pub.begin());
  if (!crypto::ed25519_verify(pub, {reinterpret_cast<const uint8_t*>(signed_bytes.data()), signed_bytes.size()},
                              receipt->signature))
    return v.fail("receipt_signature", steps::kReceiptSignatureInvalid,
                  "the receipt's Ed25519 signature does not verify under the attested receipt key: it was altered "
                  "or signed by another key");
  v.pass("receipt_signature", "Ed25519 signature verified under claims.receipt.ed25519_pub");

  // 5–6. The model and configuration are the attested ones.
  if (!crypto::equal_constant_time(receipt->receipt.model_sha256, claims->model_sha256))
    return v.fail("receipt_model", steps::kReceiptModelMismatch,
                  "the receipt's model_sha256 " + r.model_sha256 + " differs from the attested claims.model.sha256 " +
                      claims->model_sha256_hex);
  if (receipt->receipt.response.model != claims->model_name)
    return v.fail("receipt_model", steps::kReceiptModelMismatch,
                  "the receipt's response.model differs from the attested claims.model.name");
  v.pass("receipt_model", "model \"" + claims->model_name + "\", sha256:" + r.model_sha256);
  if (!crypto::equal_constant_time(receipt->receipt.config_sha256, claims->config_sha256))
    return v.fail("receipt_config", steps::kReceiptConfigMismatch,
                  "the receipt's config_sha256 " + r.config_sha256 + " differs from the attested claims.runtime.config_sha256");
  v.pass("receipt_config", "config_sha256 " + r.config_sha256 + " is the attested configuration's");

  // 7–8. The response, when given.
  if (response) {
    const std::optional<receipt::CompletionView> view = receipt::read_completion(*response, error);
    if (!view) return v.fail("completion", steps::kMalformedCompletion, error);
    v.pass("completion", std::string(view->stream ? "an SSE stream" : "one JSON body") + ", " +
                             std::to_string(view->choices.size()) + " choice(s)");
    const std::string difference = response_difference(*view, *receipt);
    if (!difference.empty()) return v.fail("output", steps::kReceiptOutputMismatch, difference);
    v.pass("output", "id, usage and SHA-256 of the canonical choices equal the receipt's (" + r.output_sha256 + ")");
    r.response_checked = true;
  }
  r.accepted = true;
  return r;
}

}  // namespace a3s::power::verify
