#include "runtime/caller_text.h"

#include <string>
#include <utility>

#include "privacy/wipe_text.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::runtime {
namespace {

void quote_string(std::string& s, const Tokenizer& tokenizer) {
  std::string q = tokenizer.quote(s);
  privacy::wipe_string(s);
  s = std::move(q);
}

}  // namespace

// Object keys cannot be changed in place: objects are rebuilt in their key order.
nlohmann::ordered_json quoted_json(const nlohmann::ordered_json& j, const Tokenizer& tokenizer) {
  if (j.is_string()) return tokenizer.quote(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& v : j) out.push_back(quoted_json(v, tokenizer));
    return out;
  }
  if (j.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[tokenizer.quote(it.key())] = quoted_json(it.value(), tokenizer);
    return out;
  }
  return j;
}

void wipe_messages(chat::Messages& messages) noexcept {
  for (chat::Message& m : messages) {
    if (m.content) privacy::wipe_string(*m.content);
    if (m.name) privacy::wipe_string(*m.name);
    if (m.tool_call_id) privacy::wipe_string(*m.tool_call_id);
    if (m.tool_calls) {
      for (auto& call : *m.tool_calls) privacy::wipe_json(call);
    }
    privacy::wipe_json(m.extra);
  }
}

chat::Messages quoted_messages(const chat::Messages& messages, const Tokenizer& tokenizer) {
  chat::Messages out = messages;
  for (chat::Message& m : out) {
    if (m.content) quote_string(*m.content, tokenizer);
    if (m.name) quote_string(*m.name, tokenizer);
    if (m.tool_call_id) quote_string(*m.tool_call_id, tokenizer);
    if (m.tool_calls) {
      for (auto& call : *m.tool_calls) {
        nlohmann::ordered_json q = quoted_json(call, tokenizer);
        privacy::wipe_json(call);
        call = std::move(q);
      }
    }
    nlohmann::ordered_json extra = quoted_json(m.extra, tokenizer);
    privacy::wipe_json(m.extra);
    m.extra = std::move(extra);
  }
  return out;
}

}  // namespace a3s::power::runtime
