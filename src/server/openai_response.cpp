#include "server/openai_response.h"

#include <openssl/rand.h>

#include <cstdio>
#include <random>

namespace a3s::power::server {

using nlohmann::json;

std::string new_response_id(bool chat) {
  unsigned char bytes[12];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  std::string id = chat ? "chatcmpl-" : "cmpl-";
  char hex[3];
  for (unsigned char b : bytes) {
    std::snprintf(hex, sizeof hex, "%02x", b);
    id += hex;
  }
  return id;
}

json usage_json(int prompt_tokens, int completion_tokens, int cached_tokens) {
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", cached_tokens}}}};
}

json timings_json(const ShownTimings& t) { return {{"prompt_eval_ms", t.prompt_eval_ms}, {"ttft_ms", t.ttft_ms}}; }

namespace {
json head(const ResponseMeta& m, const char* object) {
  return {{"id", m.id},
          {"object", object},
          {"created", m.created},
          {"model", m.model},
          {"system_fingerprint", m.system_fingerprint}};
}
}  // namespace

json chat_completion(const ResponseMeta& m, const runtime::CompletionResult& r) {
  json j = head(m, "chat.completion");
  j["choices"] = json::array({{{"index", 0},
                               {"message", {{"role", "assistant"}, {"content", r.text}}},
                               {"logprobs", nullptr},
                               {"finish_reason", runtime::finish_reason_name(r.finish)}}});
  j["usage"] = usage_json(r.prompt_tokens, r.completion_tokens, r.cached_tokens);
  return j;
}

json text_completion(const ResponseMeta& m, const runtime::CompletionResult& r) {
  json j = head(m, "text_completion");
  j["choices"] = json::array({{{"text", r.text},
                               {"index", 0},
                               {"logprobs", nullptr},
                               {"finish_reason", runtime::finish_reason_name(r.finish)}}});
  j["usage"] = usage_json(r.prompt_tokens, r.completion_tokens, r.cached_tokens);
  return j;
}

namespace {
json chat_chunk(const ResponseMeta& m, json delta, json finish, bool with_usage_null) {
  json j = head(m, "chat.completion.chunk");
  j["choices"] = json::array(
      {{{"index", 0}, {"delta", std::move(delta)}, {"logprobs", nullptr}, {"finish_reason", std::move(finish)}}});
  if (with_usage_null) j["usage"] = nullptr;
  return j;
}
}  // namespace

json chat_chunk_role(const ResponseMeta& m, bool with_usage_null) {
  return chat_chunk(m, {{"role", "assistant"}, {"content", ""}}, nullptr, with_usage_null);
}

json chat_chunk_delta(const ResponseMeta& m, std::string_view text, bool with_usage_null) {
  return chat_chunk(m, {{"content", text}}, nullptr, with_usage_null);
}

json chat_chunk_finish(const ResponseMeta& m, const char* finish_reason, bool with_usage_null) {
  return chat_chunk(m, json::object(), finish_reason, with_usage_null);
}

json text_chunk(const ResponseMeta& m, std::string_view text, const char* finish_reason, bool with_usage_null) {
  json j = head(m, "text_completion");
  j["choices"] = json::array({{{"text", text},
                               {"index", 0},
                               {"logprobs", nullptr},
                               {"finish_reason", finish_reason ? json(finish_reason) : json(nullptr)}}});
  if (with_usage_null) j["usage"] = nullptr;
  return j;
}

json usage_chunk(const ResponseMeta& m, bool chat, const runtime::CompletionResult& r) {
  json j = head(m, chat ? "chat.completion.chunk" : "text_completion");
  j["choices"] = json::array();
  j["usage"] = usage_json(r.prompt_tokens, r.completion_tokens, r.cached_tokens);
  return j;
}

json receipt_chunk(const ResponseMeta& m, bool chat) {
  json j = head(m, chat ? "chat.completion.chunk" : "text_completion");
  j["choices"] = json::array();
  return j;
}

std::string sse_event(std::string_view payload) {
  std::string s;
  s.reserve(payload.size() + 8);
  s += "data: ";
  s += payload;
  s += "\n\n";
  return s;
}

}  // namespace a3s::power::server
