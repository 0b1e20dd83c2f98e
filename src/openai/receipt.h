// The signed receipt of one completion response (docs/receipts.md, schema "a3s-power.receipt.v1";
// the format is attestation/receipt.h), made the one way every front end makes it: the server's
// completion routes (in tee_mode) and the embedded runtime (with its TEE layer on).
//
// The output digest is over `choices` as the client decodes them: the non-streaming body's choices
// (chat_completion / text_completion of openai_response.h) serialised as the body carries them and
// parsed back, so it is the same for a stream reassembled by the verifier.
//
// Errors: Error(codes::kInvalidArgument) when the choices or a name cannot be canonicalised (invalid
// UTF-8 that survived, a number out of range).
#pragma once

#include <span>

#include <nlohmann/json.hpp>

#include "crypto/sha256.h"
#include "openai/openai_response.h"
#include "tee/attestor.h"

namespace a3s::power::openai {

// What a receipt says about its response besides the response itself.
struct ReceiptFacts {
  bool chat = true;                    // chat completion (else text completion)
  bool stream = false;                 // the response is an SSE stream (receipt in its last chunk)
  crypto::Sha256Digest request_sha256{};  // over the request body bytes exactly as received
  crypto::Sha256Digest prompt_sha256{};   // tee::prompt_sha256 of the prompt's token ids
  crypto::Sha256Digest model_sha256{};    // the answering model's measured plaintext digest
  UsageCounts usage;                      // as the response shows them
  bool usage_rounded = false;             // suppress_token_metrics rounded them
  bool prompt_cache_used = false;         // the request carried prompt_cache_key
};

// The signed receipt object (tee::Attestor::sign_receipt) of the response `meta` with `choices`.
nlohmann::json make_receipt(const tee::Attestor& attestor, const ResponseMeta& meta,
                            std::span<const ChoiceOutput> choices, const ReceiptFacts& facts);

}  // namespace a3s::power::openai
