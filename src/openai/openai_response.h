// OpenAI response shapes (chat.completion, chat.completion.chunk, text_completion, list) as JSON, with
// no transport: the server frames them (server/openai_response.h: bodies and Server-Sent Events), the
// embedded runtime hands them to its caller, and receipts digest their choices (openai/receipt.h).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/completion.h"

namespace a3s::power::openai {

// Identity of one response: shared by all chunks of a stream.
struct ResponseMeta {
  std::string id;                  // "chatcmpl-…" | "cmpl-…"
  int64_t created = 0;             // Unix seconds
  std::string model;
  std::string system_fingerprint;
};

// `prefix` + 24 random hex digits.
std::string new_id(std::string_view prefix);
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

// One choice of a response as the client sees it. The text is request data: its owner wipes it.
struct ChoiceOutput {
  std::string text;       // message content (chat) or completion text
  std::string reasoning;  // chat: a reasoning model's thinking (message.reasoning_content when not empty)
  FinishReason finish = FinishReason::Stop;
  nlohmann::json logprobs = nullptr;  // chat_logprobs() / text_logprobs() of the choice, or null
  std::vector<chat::ToolCall> tool_calls;  // chat: the calls read from the reply, ids assigned
};

// A choice's finish_reason: "tool_calls" for a reply that ended by itself with tool calls, else
// runtime::finish_reason_name.
const char* choice_finish_reason(FinishReason finish, bool has_tool_calls);

// A new tool call id for a model whose template has `syntax`: 9 letters and digits for Mistral
// templates (which refuse any other id in the history), else "call_" + 24 hex digits.
std::string new_tool_call_id(chat::ToolCallSyntax syntax);

// Zeroes the calls' names and arguments (model output) and empties `calls`.
void wipe_tool_calls(std::vector<chat::ToolCall>& calls);

// OpenAI's tool_calls array: [{"id", "type": "function", "function": {"name", "arguments"}}];
// with first_index >= 0 (stream deltas) each entry starts with "index": first_index + i.
nlohmann::json tool_calls_json(std::span<const chat::ToolCall> calls, int first_index = -1);

// The counts a response shows: the prompt once, the completion tokens of every choice summed.
struct UsageCounts {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int cached_tokens = 0;
};

// Whole responses: choices[i] gets index i.
nlohmann::json chat_completion(const ResponseMeta& m, std::span<const ChoiceOutput> choices, const UsageCounts& u);
nlohmann::json text_completion(const ResponseMeta& m, std::span<const ChoiceOutput> choices, const UsageCounts& u);

// Streaming chunks of choice `index`. `logprobs` is the log probabilities of the tokens the chunk
// carries (or null). `with_usage_null` adds "usage": null (stream_options.include_usage).
nlohmann::json chat_chunk_role(const ResponseMeta& m, int index, bool with_usage_null);
// A delta of `text` (content), of `reasoning` (reasoning_content) when not empty, and of
// `tool_calls` (tool_calls_json with indexes) when not null. "content" is left out only when the
// delta carries something else and no text.
nlohmann::json chat_chunk_delta(const ResponseMeta& m, int index, std::string_view text, nlohmann::json logprobs,
                                bool with_usage_null, std::string_view reasoning = {},
                                nlohmann::json tool_calls = nullptr);
nlohmann::json chat_chunk_finish(const ResponseMeta& m, int index, const char* finish_reason, nlohmann::json logprobs,
                                 bool with_usage_null);
nlohmann::json text_chunk(const ResponseMeta& m, int index, std::string_view text, nlohmann::json logprobs,
                          const char* finish_reason, bool with_usage_null);
// The final usage chunk: empty choices.
nlohmann::json usage_chunk(const ResponseMeta& m, bool chat, const UsageCounts& u);
// The last chunk of a stream without include_usage that carries the receipt (the caller adds
// "attestation_receipt"): shaped like the usage chunk, empty choices, no usage.
nlohmann::json receipt_chunk(const ResponseMeta& m, bool chat);

// Log probabilities in the OpenAI shapes (docs/api.md, "Log probabilities"). A log probability of
// -inf (a token that could not be drawn) is written as -9999.0, as OpenAI does.
// Chat: {"content": [{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}],
// "refusal": null}; "token" is the token's bytes as a string (invalid UTF-8 shown as U+FFFD), "bytes"
// the exact bytes.
nlohmann::json chat_logprobs(std::span<const TokenLogprobs> tokens);
// Completions: {"tokens", "token_logprobs", "top_logprobs" (one object token → logprob per token),
// "text_offset"}; text_offset is the byte offset of each token's piece within the completion's
// concatenated pieces, counting from `first_offset` (the pieces of earlier chunks of a stream).
nlohmann::json text_logprobs(std::span<const TokenLogprobs> tokens, size_t first_offset);

// POST /v1/embeddings: {"object": "list", "data": [{"object": "embedding", "index", "embedding"}],
// "model", "usage": {"prompt_tokens", "total_tokens"}}; with base64, each embedding is the base64 of
// its float32 values in little-endian byte order.
nlohmann::json embeddings_response(const std::string& model, std::span<const std::vector<float>> vectors,
                                   bool base64, int prompt_tokens);

// Compact JSON text; invalid UTF-8 in strings is replaced by U+FFFD instead of throwing.
inline std::string json_text(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace a3s::power::openai
