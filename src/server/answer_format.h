// The wire format of a route that answers with one assistant text and its tool calls (the Responses
// API, Anthropic's Messages API): Api::single_answer runs the generation and the event loop once for
// all of them; a format says what the body, and the events of a stream, look like. A reasoning
// model's thinking is never part of such an answer. Tool calls (chat/tool_calls.h, ids assigned) come
// after the text: a stream gets each whole call once it is complete.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "a3s/power/error.h"
#include "chat/tool_calls.h"
#include "runtime/completion.h"

namespace a3s::power::server {

// The counts an answer shows (rounded under suppress_token_metrics).
struct AnswerUsage {
  int input_tokens = 0;
  int output_tokens = 0;
  int cached_tokens = 0;
};

class AnswerFormat {
 public:
  virtual ~AnswerFormat() = default;
  // The events that open a stream, once the prompt has been evaluated.
  virtual std::string stream_start(const AnswerUsage& usage) = 0;
  // The event carrying one piece of the answer (never empty).
  virtual std::string stream_delta(std::string_view text) = 0;
  // The events of one tool call, the index-th of the answer; no text delta follows.
  virtual std::string stream_tool_call(const chat::ToolCall& call, int index) = 0;
  // The events that end a stream: `text` is the whole answer the deltas carried, `calls` every call.
  virtual std::string stream_end(const std::string& text, std::span<const chat::ToolCall> calls,
                                 const runtime::CompletionResult& r, const AnswerUsage& usage) = 0;
  // The event that ends a stream with an error (the error a body would carry).
  virtual std::string stream_error(const Error& e) = 0;
  // The whole answer as one JSON body.
  virtual nlohmann::json body(const std::string& text, std::span<const chat::ToolCall> calls,
                              const runtime::CompletionResult& r, const AnswerUsage& usage) = 0;
};

}  // namespace a3s::power::server
