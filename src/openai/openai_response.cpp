#include "openai/openai_response.h"

#include <openssl/rand.h>

#include <bit>

#include <cstdio>
#include <random>

#include "crypto/base64.h"
#include "privacy/wipe_text.h"

namespace a3s::power::openai {

using nlohmann::json;

std::string new_id(std::string_view prefix) {
  unsigned char bytes[12];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  std::string id(prefix);
  char hex[3];
  for (unsigned char b : bytes) {
    std::snprintf(hex, sizeof hex, "%02x", b);
    id += hex;
  }
  return id;
}

std::string new_response_id(bool chat) { return new_id(chat ? "chatcmpl-" : "cmpl-"); }

std::string new_tool_call_id(chat::ToolCallSyntax syntax) {
  if (syntax != chat::ToolCallSyntax::kMistral) return new_id("call_");
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[9];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    std::random_device rd;
    for (auto& b : bytes) b = static_cast<unsigned char>(rd());
  }
  std::string id;
  for (unsigned char b : bytes) id += kAlnum[b % 62];
  return id;
}

const char* choice_finish_reason(FinishReason finish, bool has_tool_calls) {
  return has_tool_calls && finish == FinishReason::Stop ? "tool_calls" : runtime::finish_reason_name(finish);
}

void wipe_tool_calls(std::vector<chat::ToolCall>& calls) {
  for (auto& c : calls) {
    privacy::wipe_string(c.id);
    privacy::wipe_string(c.name);
    privacy::wipe_string(c.arguments);
  }
  calls.clear();
}

json tool_calls_json(std::span<const chat::ToolCall> calls, int first_index) {
  json out = json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    json one = json::object();
    if (first_index >= 0) one["index"] = first_index + static_cast<int>(i);
    one["id"] = calls[i].id;
    one["type"] = "function";
    one["function"] = {{"name", calls[i].name}, {"arguments", calls[i].arguments}};
    out.push_back(std::move(one));
  }
  return out;
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

namespace {
json usage_of(const UsageCounts& u) { return usage_json(u.prompt_tokens, u.completion_tokens, u.cached_tokens); }

json whole(const ResponseMeta& m, std::span<const ChoiceOutput> choices, const UsageCounts& u, bool chat) {
  json j = head(m, chat ? "chat.completion" : "text_completion");
  json list = json::array();
  for (size_t i = 0; i < choices.size(); ++i) {
    const ChoiceOutput& c = choices[i];
    json one = {{"index", i}};
    if (chat) {
      one["message"] = {{"role", "assistant"}, {"content", c.text}};
      if (!c.reasoning.empty()) one["message"]["reasoning_content"] = c.reasoning;
      if (!c.tool_calls.empty()) one["message"]["tool_calls"] = tool_calls_json(c.tool_calls);
    } else {
      one["text"] = c.text;
    }
    one["logprobs"] = c.logprobs;
    one["finish_reason"] = choice_finish_reason(c.finish, !c.tool_calls.empty());
    list.push_back(std::move(one));
  }
  j["choices"] = std::move(list);
  j["usage"] = usage_of(u);
  return j;
}

json chat_chunk(const ResponseMeta& m, int index, json delta, json logprobs, json finish, bool with_usage_null) {
  json j = head(m, "chat.completion.chunk");
  j["choices"] = json::array({{{"index", index},
                               {"delta", std::move(delta)},
                               {"logprobs", std::move(logprobs)},
                               {"finish_reason", std::move(finish)}}});
  if (with_usage_null) j["usage"] = nullptr;
  return j;
}

// OpenAI's floor for a log probability that JSON cannot write (-inf).
double shown_logprob(float v) { return v < -9999.0f ? -9999.0 : static_cast<double>(v); }

json bytes_of(const std::string& piece) {
  json b = json::array();
  for (unsigned char c : piece) b.push_back(static_cast<int>(c));
  return b;
}

json chat_entry(const TokenLogprobs::Entry& e) {
  return {{"token", e.piece}, {"logprob", shown_logprob(e.logprob)}, {"bytes", bytes_of(e.piece)}};
}
}  // namespace

json chat_completion(const ResponseMeta& m, std::span<const ChoiceOutput> choices, const UsageCounts& u) {
  return whole(m, choices, u, /*chat=*/true);
}

json text_completion(const ResponseMeta& m, std::span<const ChoiceOutput> choices, const UsageCounts& u) {
  return whole(m, choices, u, /*chat=*/false);
}

json chat_chunk_role(const ResponseMeta& m, int index, bool with_usage_null) {
  return chat_chunk(m, index, {{"role", "assistant"}, {"content", ""}}, nullptr, nullptr, with_usage_null);
}

json chat_chunk_delta(const ResponseMeta& m, int index, std::string_view text, json logprobs, bool with_usage_null,
                      std::string_view reasoning, json tool_calls) {
  json delta = json::object();
  if (!reasoning.empty()) delta["reasoning_content"] = reasoning;
  if (!text.empty() || (reasoning.empty() && tool_calls.is_null())) delta["content"] = text;
  if (!tool_calls.is_null()) delta["tool_calls"] = std::move(tool_calls);
  return chat_chunk(m, index, std::move(delta), std::move(logprobs), nullptr, with_usage_null);
}

json chat_chunk_finish(const ResponseMeta& m, int index, const char* finish_reason, json logprobs,
                       bool with_usage_null) {
  return chat_chunk(m, index, json::object(), std::move(logprobs), finish_reason, with_usage_null);
}

json text_chunk(const ResponseMeta& m, int index, std::string_view text, json logprobs, const char* finish_reason,
                bool with_usage_null) {
  json j = head(m, "text_completion");
  j["choices"] = json::array({{{"text", text},
                               {"index", index},
                               {"logprobs", std::move(logprobs)},
                               {"finish_reason", finish_reason ? json(finish_reason) : json(nullptr)}}});
  if (with_usage_null) j["usage"] = nullptr;
  return j;
}

json usage_chunk(const ResponseMeta& m, bool chat, const UsageCounts& u) {
  json j = head(m, chat ? "chat.completion.chunk" : "text_completion");
  j["choices"] = json::array();
  j["usage"] = usage_of(u);
  return j;
}

json chat_logprobs(std::span<const TokenLogprobs> tokens) {
  json content = json::array();
  for (const TokenLogprobs& t : tokens) {
    json e = chat_entry(t.chosen);
    json top = json::array();
    for (const auto& alt : t.top) top.push_back(chat_entry(alt));
    e["top_logprobs"] = std::move(top);
    content.push_back(std::move(e));
  }
  return {{"content", std::move(content)}, {"refusal", nullptr}};
}

json text_logprobs(std::span<const TokenLogprobs> tokens, size_t first_offset) {
  json toks = json::array(), lps = json::array(), tops = json::array(), offsets = json::array();
  size_t offset = first_offset;
  for (const TokenLogprobs& t : tokens) {
    toks.push_back(t.chosen.piece);
    lps.push_back(shown_logprob(t.chosen.logprob));
    json top = json::object();
    // Keys are the pieces as the client decodes them; two alternatives can share one (two partial
    // UTF-8 bytes both shown as U+FFFD): the more probable one, listed first, is kept.
    for (const auto& alt : t.top) {
      const std::string key = json::parse(json_text(json(alt.piece))).get<std::string>();
      if (!top.contains(key)) top[key] = shown_logprob(alt.logprob);
    }
    tops.push_back(std::move(top));
    offsets.push_back(offset);
    offset += t.chosen.piece.size();
  }
  return {{"tokens", std::move(toks)},
          {"token_logprobs", std::move(lps)},
          {"top_logprobs", std::move(tops)},
          {"text_offset", std::move(offsets)}};
}

json receipt_chunk(const ResponseMeta& m, bool chat) {
  json j = head(m, chat ? "chat.completion.chunk" : "text_completion");
  j["choices"] = json::array();
  return j;
}

json embeddings_response(const std::string& model, std::span<const std::vector<float>> vectors, bool base64,
                         int prompt_tokens) {
  json data = json::array();
  for (size_t i = 0; i < vectors.size(); ++i) {
    json e = {{"object", "embedding"}, {"index", i}};
    if (base64) {
      std::vector<uint8_t> bytes(vectors[i].size() * 4);
      for (size_t k = 0; k < vectors[i].size(); ++k) {
        const uint32_t u = std::bit_cast<uint32_t>(vectors[i][k]);
        for (int b = 0; b < 4; ++b) bytes[k * 4 + static_cast<size_t>(b)] = static_cast<uint8_t>(u >> (8 * b));
      }
      e["embedding"] = crypto::base64_encode(bytes);
      privacy::wipe_vector(bytes);  // derived from the input
    } else {
      json v = json::array();
      for (float f : vectors[i]) v.push_back(static_cast<double>(f));
      e["embedding"] = std::move(v);
    }
    data.push_back(std::move(e));
  }
  return {{"object", "list"},
          {"data", std::move(data)},
          {"model", model},
          {"usage", {{"prompt_tokens", prompt_tokens}, {"total_tokens", prompt_tokens}}}};
}

}  // namespace a3s::power::openai
