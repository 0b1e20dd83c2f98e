// Streaming chat completions against the OpenAI-compatible API (POST /v1/chat/completions with
// "stream": true).
//
// Wire format (OpenAI API reference, "Create chat completion", streaming): a `text/event-stream`
// of `data: <chat.completion.chunk JSON>` events; each chunk's choices[0].delta.content carries the
// next piece of the reply, choices[0].finish_reason is set on the last chunk, and the stream ends
// with `data: [DONE]`. An error after the stream started arrives as one `data: {"error": {...}}`
// event and no [DONE].
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "http_client/http_client.h"
#include "http_client/sse_parser.h"

namespace a3s::power::client {

struct ChatRequest {
  std::string model;
  nlohmann::json messages = nlohmann::json::array();  // [{"role", "content"}, …]
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::optional<uint64_t> seed;
};

// The request body: {"model", "messages", "stream": true, and the optional fields that are set}.
nlohmann::json chat_request_body(const ChatRequest& req);

using DeltaHandler = std::function<void(std::string_view text)>;

// Interprets the events of one streamed chat completion.
class ChatStreamDecoder {
 public:
  // Handles one event; returns false once the stream is complete ("[DONE]"). Calls `on_delta`
  // for every non-empty content delta. Events of a type other than "message" are ignored.
  // Throws ServerError for an error event and for data that is not a JSON object.
  bool on_event(const SseEvent& event, const DeltaHandler& on_delta);

  bool done() const { return done_; }
  const std::string& content() const { return content_; }              // all deltas so far
  const std::string& finish_reason() const { return finish_reason_; }  // "" until the last chunk

 private:
  bool done_ = false;
  std::string content_;
  std::string finish_reason_;
};

struct ChatReply {
  std::string content;
  std::string finish_reason;  // "stop", "length", …; "cancelled" when *cancel stopped it
  bool cancelled = false;
};

// Sends `req` and streams the reply's deltas to `on_delta` as they arrive. Throws what
// HttpClient::post_stream throws, and ServerError when the stream ends without "[DONE]".
ChatReply stream_chat(HttpClient& client, const ChatRequest& req, const DeltaHandler& on_delta,
                      const std::atomic<bool>* cancel = nullptr);

}  // namespace a3s::power::client
