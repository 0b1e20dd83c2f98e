// OpenAI response shapes (chat.completion, chat.completion.chunk, text_completion, model, list) and
// Server-Sent Events framing ("data: <json>\n\n", the stream ends with "data: [DONE]\n\n").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "runtime/completion.h"

namespace a3s::power::server {

// Identity of one response: shared by all chunks of a stream.
struct ResponseMeta {
  std::string id;                  // "chatcmpl-…" | "cmpl-…"
  int64_t created = 0;             // Unix seconds
  std::string model;
  std::string system_fingerprint;
};

// "chatcmpl-" / "cmpl-" + 24 random hex digits.
std::string new_response_id(bool chat);

// {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details: {cached_tokens}}: the
// cached tokens are the prompt tokens restored from the prompt-prefix cache (part of prompt_tokens).
nlohmann::json usage_json(int prompt_tokens, int completion_tokens, int cached_tokens);

// Timings of one generation as reported (top-level "timings" of the final usage chunk and of a
// non-streamed response; docs/prompt-cache.md): prompt evaluation alone, and time to first token
// from the request's arrival, in milliseconds.
struct ShownTimings {
  double prompt_eval_ms = 0;
  double ttft_ms = 0;
};
nlohmann::json timings_json(const ShownTimings& t);

nlohmann::json chat_completion(const ResponseMeta& m, const runtime::CompletionResult& r);
nlohmann::json text_completion(const ResponseMeta& m, const runtime::CompletionResult& r);

// Streaming chunks. `with_usage_null` adds "usage": null (stream_options.include_usage).
nlohmann::json chat_chunk_role(const ResponseMeta& m, bool with_usage_null);
nlohmann::json chat_chunk_delta(const ResponseMeta& m, std::string_view text, bool with_usage_null);
nlohmann::json chat_chunk_finish(const ResponseMeta& m, const char* finish_reason, bool with_usage_null);
nlohmann::json text_chunk(const ResponseMeta& m, std::string_view text, const char* finish_reason,
                          bool with_usage_null);
// The final usage chunk: empty choices.
nlohmann::json usage_chunk(const ResponseMeta& m, bool chat, const runtime::CompletionResult& r);
// The last chunk of a stream without include_usage that carries the receipt (the caller adds
// "attestation_receipt"): shaped like the usage chunk, empty choices, no usage.
nlohmann::json receipt_chunk(const ResponseMeta& m, bool chat);

// Compact JSON text; invalid UTF-8 in strings is replaced by U+FFFD instead of throwing.
inline std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// One SSE event carrying `payload` (a JSON text on one line).
std::string sse_event(std::string_view payload);
inline std::string sse_event(const nlohmann::json& j) { return sse_event(std::string_view(json_text(j))); }
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";

}  // namespace a3s::power::server
