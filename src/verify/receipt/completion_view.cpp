#include "verify/receipt/completion_view.h"

#include <map>
#include <set>

#include "base/json_unique_keys.h"

namespace a3s::power::verify::receipt {
namespace {

using nlohmann::json;

constexpr std::string_view kData = "data: ";
constexpr std::string_view kDone = "data: [DONE]\n\n";

bool only_members(const json& obj, std::initializer_list<const char*> allowed) {
  const std::set<std::string> names(allowed.begin(), allowed.end());
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!names.count(it.key())) return false;
  return true;
}

bool fail(std::string& error, std::string why) {
  error = std::move(why);
  return false;
}

// The members shared by a body and every chunk.
bool read_head(const json& j, CompletionView& v, std::string& error) {
  for (const char* key : {"id", "object", "model", "system_fingerprint"})
    if (!j.contains(key) || !j[key].is_string()) return fail(error, std::string("member \"") + key + "\" must be a string");
  if (!j.contains("created") || !j["created"].is_number_integer())
    return fail(error, "member \"created\" must be an integer");
  if (!j.contains("choices") || !j["choices"].is_array()) return fail(error, "member \"choices\" must be an array");
  v.id = j["id"].get<std::string>();
  v.object = j["object"].get<std::string>();
  v.created = j["created"].get<int64_t>();
  v.model = j["model"].get<std::string>();
  v.system_fingerprint = j["system_fingerprint"].get<std::string>();
  return true;
}

// {prompt_tokens, completion_tokens, total_tokens} and optionally prompt_tokens_details
// {cached_tokens}, every count an integer.
bool valid_usage(const json& u) {
  if (!u.is_object() || !only_members(u, {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details"}))
    return false;
  for (const char* key : {"prompt_tokens", "completion_tokens", "total_tokens"})
    if (!u.contains(key) || !u[key].is_number_integer()) return false;
  if (u.contains("prompt_tokens_details")) {
    const json& d = u["prompt_tokens_details"];
    if (!d.is_object() || d.size() != 1 || !d.contains("cached_tokens") || !d["cached_tokens"].is_number_integer())
      return false;
  }
  return true;
}

// "timings" (docs/prompt-cache.md): {prompt_eval_ms, ttft_ms}, numbers. Not covered by the receipt.
bool valid_timings(const json& j) {
  if (!j.contains("timings")) return true;
  const json& t = j["timings"];
  return t.is_object() && t.size() == 2 && t.contains("prompt_eval_ms") && t["prompt_eval_ms"].is_number() &&
         t.contains("ttft_ms") && t["ttft_ms"].is_number();
}

std::optional<CompletionView> read_body(std::string_view text, std::string& error) {
  std::string parse_error;
  const std::optional<json> parsed = parse_json_unique_keys(text, parse_error);
  if (!parsed) {
    error = parse_error == kNotJson ? "the response is neither JSON nor an SSE stream"
                                    : "the response repeats a key in a JSON object";
    return std::nullopt;
  }
  const json& j = *parsed;
  if (!j.is_object()) {
    error = "the response is not a JSON object";
    return std::nullopt;
  }
  if (!only_members(j, {"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "timings",
                        "attestation_receipt"})) {
    error = "the response has a member a completion body does not have";
    return std::nullopt;
  }
  if (!valid_timings(j)) {
    error = "member \"timings\" must be {prompt_eval_ms, ttft_ms}";
    return std::nullopt;
  }
  CompletionView v;
  if (!read_head(j, v, error)) return std::nullopt;
  if (v.object != "chat.completion" && v.object != "text_completion") {
    error = "member \"object\" must be \"chat.completion\" or \"text_completion\"";
    return std::nullopt;
  }
  if (!j.contains("usage") || !valid_usage(j["usage"])) {
    error = "member \"usage\" must be {prompt_tokens, completion_tokens, total_tokens[, prompt_tokens_details]}";
    return std::nullopt;
  }
  v.choices = j["choices"];
  v.usage = j["usage"];
  if (j.contains("attestation_receipt")) v.receipt = j["attestation_receipt"];
  return v;
}

// One choice being reassembled from its deltas.
struct Assembly {
  json choice;                    // index, finish_reason, logprobs and (text) "text"
  json message = json::object();  // chat: role, content, reasoning_content
  std::map<int64_t, json> tool_calls;
};

bool append_string(json& target, const char* key, const json& piece, std::string& error) {
  if (piece.is_null()) return true;
  if (!piece.is_string()) return fail(error, std::string("delta member \"") + key + "\" must be a string or null");
  if (!target.contains(key)) target[key] = "";
  target[key] = target[key].get<std::string>() + piece.get<std::string>();
  return true;
}

bool merge_logprobs(json& target, const json& piece, std::string& error) {
  if (piece.is_null()) return true;
  if (!piece.is_object()) return fail(error, "member \"logprobs\" must be an object or null");
  if (target.is_null()) target = json::object();
  for (auto it = piece.begin(); it != piece.end(); ++it) {
    if (it->is_null()) {
      if (!target.contains(it.key())) target[it.key()] = nullptr;
      continue;
    }
    if (!it->is_array()) return fail(error, "logprobs members must be arrays or null");
    if (!target.contains(it.key()) || target[it.key()].is_null()) target[it.key()] = json::array();
    for (const auto& e : *it) target[it.key()].push_back(e);
  }
  return true;
}

bool merge_tool_calls(Assembly& a, const json& calls, std::string& error) {
  if (!calls.is_array()) return fail(error, "delta member \"tool_calls\" must be an array");
  for (const json& c : calls) {
    if (!c.is_object() || !only_members(c, {"index", "id", "type", "function"}) || !c.contains("index") ||
        !c["index"].is_number_integer())
      return fail(error, "a tool call delta must have an integer index and only id, type and function");
    json& t = a.tool_calls[c["index"].get<int64_t>()];
    if (t.is_null()) t = json::object();
    for (const char* key : {"id", "type"}) {
      if (!c.contains(key)) continue;
      if (!c[key].is_string()) return fail(error, std::string("tool call member \"") + key + "\" must be a string");
      t[key] = c[key];
    }
    if (c.contains("function")) {
      const json& f = c["function"];
      if (!f.is_object() || !only_members(f, {"name", "arguments"}))
        return fail(error, "a tool call's function must have only name and arguments");
      if (!t.contains("function")) t["function"] = json::object();
      if (f.contains("name")) {
        if (!f["name"].is_string()) return fail(error, "a tool call's function name must be a string");
        t["function"]["name"] = f["name"];
      }
      if (f.contains("arguments") && !append_string(t["function"], "arguments", f["arguments"], error)) return false;
    }
  }
  return true;
}

bool merge_choice(std::map<int64_t, Assembly>& choices, const json& c, bool chat, std::string& error) {
  if (!c.is_object()) return fail(error, "a choice must be an object");
  if (chat ? !only_members(c, {"index", "delta", "logprobs", "finish_reason"})
           : !only_members(c, {"index", "text", "logprobs", "finish_reason"}))
    return fail(error, "a choice has a member a stream chunk does not have");
  if (!c.contains("index") || !c["index"].is_number_integer()) return fail(error, "a choice's index must be an integer");
  const int64_t index = c["index"].get<int64_t>();
  Assembly& a = choices[index];
  if (a.choice.is_null()) {
    a.choice = {{"index", index}, {"logprobs", nullptr}, {"finish_reason", nullptr}};
    if (!chat) a.choice["text"] = "";
  }
  if (c.contains("finish_reason") && !c["finish_reason"].is_null()) {
    if (!c["finish_reason"].is_string()) return fail(error, "a choice's finish_reason must be a string or null");
    a.choice["finish_reason"] = c["finish_reason"];
  }
  if (c.contains("logprobs") && !merge_logprobs(a.choice["logprobs"], c["logprobs"], error)) return false;
  if (!chat) {
    if (!c.contains("text") || !c["text"].is_string()) return fail(error, "a completion chunk's text must be a string");
    a.choice["text"] = a.choice["text"].get<std::string>() + c["text"].get<std::string>();
    return true;
  }
  if (!c.contains("delta") || !c["delta"].is_object()) return fail(error, "a chat chunk's delta must be an object");
  const json& d = c["delta"];
  if (!only_members(d, {"role", "content", "reasoning_content", "tool_calls"}))
    return fail(error, "a delta has a member a stream chunk does not have");
  if (d.contains("role")) {
    if (!d["role"].is_string()) return fail(error, "a delta's role must be a string");
    if (a.message.contains("role") && a.message["role"] != d["role"]) return fail(error, "a choice's role changes");
    a.message["role"] = d["role"];
  }
  if (d.contains("content") && !append_string(a.message, "content", d["content"], error)) return false;
  if (d.contains("reasoning_content") && !append_string(a.message, "reasoning_content", d["reasoning_content"], error))
    return false;
  if (d.contains("tool_calls") && !merge_tool_calls(a, d["tool_calls"], error)) return false;
  return true;
}

std::optional<CompletionView> read_stream(std::string_view text, std::string& error) {
  if (text.size() < kDone.size() || text.substr(text.size() - kDone.size()) != kDone) {
    error = "the stream does not end with \"data: [DONE]\"";
    return std::nullopt;
  }
  std::vector<std::string_view> payloads;
  std::string_view rest = text.substr(0, text.size() - kDone.size());
  while (!rest.empty()) {
    const size_t end = rest.find("\n\n");
    if (end == std::string_view::npos || rest.substr(0, kData.size()) != kData) {
      error = "the stream holds something other than \"data: <JSON>\" events";
      return std::nullopt;
    }
    const std::string_view payload = rest.substr(kData.size(), end - kData.size());
    if (payload.find('\n') != std::string_view::npos || payload == "[DONE]") {
      error = "the stream holds something other than \"data: <JSON>\" events";
      return std::nullopt;
    }
    payloads.push_back(payload);
    rest.remove_prefix(end + 2);
  }
  if (payloads.empty()) {
    error = "the stream carries no chunk";
    return std::nullopt;
  }
  CompletionView v;
  v.stream = true;
  bool chat = false;
  std::map<int64_t, Assembly> choices;
  for (size_t i = 0; i < payloads.size(); ++i) {
    std::string parse_error;
    const std::optional<json> chunk = parse_json_unique_keys(payloads[i], parse_error);
    const std::string where = "chunk " + std::to_string(i + 1);
    if (!chunk || !chunk->is_object()) {
      error = where + " is not a JSON object" + (chunk || parse_error == kNotJson ? "" : " (a key repeats)");
      return std::nullopt;
    }
    const json& j = *chunk;
    if (j.contains("error")) {
      error = where + " reports an error: the stream did not complete";
      return std::nullopt;
    }
    if (!only_members(j, {"id", "object", "created", "model", "system_fingerprint", "choices", "usage", "timings",
                          "attestation_receipt"})) {
      error = where + " has a member a stream chunk does not have";
      return std::nullopt;
    }
    if (!valid_timings(j) || (j.contains("timings") && (!j.contains("usage") || j["usage"].is_null()))) {
      error = where + ": timings must be {prompt_eval_ms, ttft_ms}, in the usage chunk";
      return std::nullopt;
    }
    CompletionView head;
    if (!read_head(j, head, error)) {
      error = where + ": " + error;
      return std::nullopt;
    }
    if (i == 0) {
      if (head.object != "chat.completion.chunk" && head.object != "text_completion") {
        error = "member \"object\" must be \"chat.completion.chunk\" or \"text_completion\"";
        return std::nullopt;
      }
      chat = head.object == "chat.completion.chunk";
      v.id = head.id;
      v.object = head.object;
      v.created = head.created;
      v.model = head.model;
      v.system_fingerprint = head.system_fingerprint;
    } else if (head.id != v.id || head.object != v.object || head.created != v.created || head.model != v.model ||
               head.system_fingerprint != v.system_fingerprint) {
      error = where + "'s id, object, created, model or system_fingerprint differs from the first chunk's";
      return std::nullopt;
    }
    if (j.contains("usage") && !j["usage"].is_null()) {
      if (!valid_usage(j["usage"]) || !j["choices"].empty() || v.usage) {
        error = where + ": usage must be {prompt_tokens, completion_tokens, total_tokens[, prompt_tokens_details]}, once, "
                        "in a chunk without choices";
        return std::nullopt;
      }
      v.usage = j["usage"];
    }
    if (j.contains("attestation_receipt")) {
      if (i + 1 != payloads.size() || !j["choices"].empty()) {
        error = where + ": attestation_receipt belongs in the last chunk, which has no choices";
        return std::nullopt;
      }
      v.receipt = j["attestation_receipt"];
    }
    for (const json& c : j["choices"]) {
      if (!merge_choice(choices, c, chat, error)) {
        error = where + ": " + error;
        return std::nullopt;
      }
    }
  }
  for (auto& [index, a] : choices) {
    if (chat) {
      if (!a.tool_calls.empty()) {
        json calls = json::array();
        for (auto& [unused, t] : a.tool_calls) calls.push_back(std::move(t));
        a.message["tool_calls"] = std::move(calls);
      }
      a.choice["message"] = std::move(a.message);
    }
    v.choices.push_back(std::move(a.choice));
  }
  return v;
}

}  // namespace

std::optional<CompletionView> read_completion(std::string_view response, std::string& error) {
  if (response.substr(0, kData.size()) == kData) return read_stream(response, error);
  return read_body(response, error);
}

}  // namespace a3s::power::verify::receipt
