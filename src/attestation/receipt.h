// Signed receipts (schema "a3s-power.receipt.v1", docs/receipts.md): what a tee_mode server signs for
// every generating response, with its per-boot Ed25519 receipt key whose public key the attestation
// claims carry (claims.h "receipt"). Shared by the server (which builds and signs receipts) and the
// verifier (which parses them and recomputes the digests), so both sides use one definition.
//
// A receipt is one JSON object; `signature` is Ed25519 (RFC 8032, pure) over the RFC 8785 canonical
// JSON (base/canonical_json.h, JsonValues::kAll) of the object without its `signature` member:
//
//   {"schema":"a3s-power.receipt.v1","key_id":"<16 hex>",
//    "response":{"id":"chatcmpl-…","object":"chat.completion","created":<Unix s>,"model":"<name>",
//                "system_fingerprint":"…","stream":false},
//    "request_sha256":"<64 hex>","prompt_sha256":"<64 hex>","output_sha256":"<64 hex>",
//    "model_sha256":"<64 hex>","config_sha256":"<64 hex>",
//    "usage":{"prompt_tokens":N,"completion_tokens":N,"total_tokens":N,"rounded":false},
//    "prompt_cache":{"used":false,"cached_tokens":0},
//    "completed_at":<Unix s>,"signature":"<128 hex>"}
//
// Digests (lowercase hex SHA-256): request_sha256 over the raw HTTP request body bytes;
// prompt_sha256 over the prompt's token ids after the chat template, each a little-endian int32
// (prompt_sha256()); output_sha256 over the canonical JSON of the response's `choices` array as a
// non-streaming body carries it (output_sha256()); model_sha256 = claims.model.sha256 of the model
// that answered; config_sha256 = claims.runtime.config_sha256. Counts are the ones the response shows
// (rounded to tens under suppress_token_metrics: usage.rounded). No user text is in a receipt.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "crypto/ed25519.h"
#include "crypto/sha256.h"

namespace a3s::power::tee {

inline constexpr const char* kReceiptSchema = "a3s-power.receipt.v1";
inline constexpr size_t kReceiptKeyIdBytes = 8;

// The key id of a receipt key: the first kReceiptKeyIdBytes of SHA-256(public key), 16 lowercase hex.
std::string receipt_key_id(const crypto::Ed25519PublicKey& public_key);

// What the response that carries the receipt says about itself (its top-level members).
struct ReceiptResponse {
  std::string id;                  // "chatcmpl-…" | "cmpl-…"
  std::string object;              // the body's / every chunk's "object": "chat.completion",
                                   // "chat.completion.chunk" or "text_completion"
  int64_t created = 0;             // the body's "created", Unix seconds
  std::string model;               // the body's "model" (served model name)
  std::string system_fingerprint;  // the body's "system_fingerprint"
  bool stream = false;             // an SSE stream (receipt in its last chunk) or one JSON body
};

struct ReceiptUsage {
  int64_t prompt_tokens = 0;      // as the response's usage shows them
  int64_t completion_tokens = 0;
  bool rounded = false;           // suppress_token_metrics: both rounded to the nearest 10
  int64_t total_tokens() const { return prompt_tokens + completion_tokens; }
};

struct Receipt {
  std::string key_id;  // receipt_key_id of the signing key
  ReceiptResponse response;
  crypto::Sha256Digest request_sha256{};
  crypto::Sha256Digest prompt_sha256{};
  crypto::Sha256Digest output_sha256{};
  crypto::Sha256Digest model_sha256{};
  crypto::Sha256Digest config_sha256{};
  ReceiptUsage usage;
  bool prompt_cache_used = false;   // the request carried prompt_cache_key (docs/prompt-cache.md)
  int64_t prompt_cache_tokens = 0;  // prompt tokens restored from the cache (as shown in usage)
  int64_t completed_at = 0;         // Unix seconds, when generation ended

  // The receipt object without "signature" (shape above).
  nlohmann::json payload() const;
  // The bytes the signature covers: canonical_json(payload(), JsonValues::kAll). Throws
  // Error(codes::kInvalidArgument) when a name is not valid UTF-8 or a number is out of range.
  std::string signed_bytes() const;
};

// payload() with "signature": <128 lowercase hex>.
nlohmann::json signed_receipt_json(const Receipt& receipt, const crypto::Ed25519Signature& signature);

struct ParsedReceipt {
  Receipt receipt;
  crypto::Ed25519Signature signature{};
  nlohmann::json json;  // the object as received
};

// Reads a receipt object. std::nullopt, with `error` naming the member and what is wrong (never a
// value), unless it has exactly the members above with their types: schema kReceiptSchema, hex
// digests in lowercase, integers in 0..2^53-1, usage.total_tokens = prompt + completion. The signature
// is not checked here.
std::optional<ParsedReceipt> parse_receipt(const nlohmann::json& receipt, std::string& error);

// SHA-256 over the token ids, each as 4 bytes little-endian (two's complement int32).
crypto::Sha256Digest prompt_sha256(std::span<const int32_t> tokens);
// SHA-256 of canonical_json(choices, JsonValues::kAll): `choices` is the array of a non-streaming body
// (chat: index, message {role, content, tool_calls, reasoning_content …}, logprobs, finish_reason;
// completions: text, index, logprobs, finish_reason). Throws Error(codes::kInvalidArgument) when it is
// not canonicalisable (invalid UTF-8, a number out of range).
crypto::Sha256Digest output_sha256(const nlohmann::json& choices);

}  // namespace a3s::power::tee
