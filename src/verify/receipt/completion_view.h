// A chat or text completion response as the client received it, read for receipt verification
// (docs/receipts.md): one JSON body, or the SSE stream reassembled into the choices a non-streaming
// body would carry. Nothing in it is trusted; verify_receipt compares it with the signed receipt.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace a3s::power::verify::receipt {

struct CompletionView {
  bool stream = false;
  // The top-level members every chunk (or the body) carries.
  std::string id;
  std::string object;  // "chat.completion" | "text_completion" | "chat.completion.chunk"
  int64_t created = 0;
  std::string model;
  std::string system_fingerprint;
  // The choices as a non-streaming body carries them: the body's array as is, or, for a stream, one
  // choice per index in index order, reassembled from the deltas (chat: message.role, message.content /
  // reasoning_content concatenated, message.tool_calls merged by index with function.arguments
  // concatenated; completions: text concatenated; both: the last non-null finish_reason, logprobs null
  // or an object whose arrays are concatenated).
  nlohmann::json choices = nlohmann::json::array();
  std::optional<nlohmann::json> usage;    // the body's "usage", or the stream's usage chunk's
  std::optional<nlohmann::json> receipt;  // "attestation_receipt": the body's, or the last chunk's
};

// Reads `response`: a stream when it starts with "data: ", else a JSON body. std::nullopt, with
// `error` (never quoting content), unless it is
//   - JSON: one object (no key repeated) with exactly id, object, created, model, system_fingerprint,
//     choices (array), usage ({prompt_tokens, completion_tokens, total_tokens} and optionally
//     prompt_tokens_details {cached_tokens}) and optionally timings {prompt_eval_ms, ttft_ms} and
//     attestation_receipt;
//   - SSE: exactly the server's framing, events "data: <JSON>\n\n" ending with "data: [DONE]\n\n" and
//     nothing after it; every chunk an object with the same id, object, created, model and
//     system_fingerprint, its choices (array) of the documented delta members only, optionally usage
//     (null, or an object in a chunk with no choices; timings only beside it) and, in the last chunk
//     only, attestation_receipt.
std::optional<CompletionView> read_completion(std::string_view response, std::string& error);

}  // namespace a3s::power::verify::receipt
