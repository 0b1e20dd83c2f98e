#include "http_client/chat_stream.h"

#include "http_client/server_error.h"

namespace a3s::power::client {

nlohmann::json chat_request_body(const ChatRequest& req) {
  nlohmann::json j = {{"model", req.model}, {"messages", req.messages}, {"stream", true}};
  if (req.temperature) j["temperature"] = *req.temperature;
  if (req.max_tokens) j["max_tokens"] = *req.max_tokens;
  if (req.seed) j["seed"] = *req.seed;
  return j;
}

bool ChatStreamDecoder::on_event(const SseEvent& event, const DeltaHandler& on_delta) {
  if (done_) return false;
  if (event.type != "message") return true;
  if (event.data == "[DONE]") {
    done_ = true;
    return false;
  }
  nlohmann::json j = nlohmann::json::parse(event.data, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw ServerError(200, "", "invalid event in the server's stream (not a JSON object)");
  if (auto e = server_error_from_json(j, 200)) throw std::move(*e);
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return true;  // e.g. a usage chunk
  const nlohmann::json& choice = (*choices)[0];
  if (!choice.is_object()) return true;
  if (auto delta = choice.find("delta"); delta != choice.end() && delta->is_object()) {
    if (auto c = delta->find("content"); c != delta->end() && c->is_string()) {
      const std::string& text = c->get_ref<const std::string&>();
      if (!text.empty()) {
        content_ += text;
        if (on_delta) on_delta(text);
      }
    }
  }
  if (auto f = choice.find("finish_reason"); f != choice.end() && f->is_string()) {
    finish_reason_ = f->get<std::string>();
  }
  return true;
}

ChatReply stream_chat(HttpClient& client, const ChatRequest& req, const DeltaHandler& on_delta,
                      const std::atomic<bool>* cancel) {
  ChatStreamDecoder decoder;
  StreamEnd end = client.post_stream(
      "/v1/chat/completions", chat_request_body(req),
      [&](const SseEvent& e) {
        decoder.on_event(e, on_delta);
        return true;  // read on to the end of the response so the connection can be reused
      },
      cancel);
  ChatReply reply;
  reply.content = decoder.content();
  if (end == StreamEnd::Cancelled) {
    reply.cancelled = true;
    reply.finish_reason = "cancelled";
    return reply;
  }
  if (!decoder.done()) {
    throw ServerError(200, "", "the server's stream ended before the reply was complete");
  }
  reply.finish_reason = decoder.finish_reason();
  return reply;
}

}  // namespace a3s::power::client
