// libFuzzer target for the Jinja interpreter (chat/jinja/template.h): the input is a template's
// source, rendered with a fixed conversation (system, user, assistant and tool-call messages, a tool
// list) under small limits. Properties:
//   - parse refuses only with Error(kUnsupportedChatTemplate), render only with
//     Error(kResourceExhausted | kInvalidRequest | kUnsupportedChatTemplate), each with a message;
//     no other exception escapes;
//   - the output stays within Limits::max_output_bytes, and rendering the same template twice gives
//     the same text and caller spans (no hidden state; the time is fixed);
//   - the caller spans are sorted, non-empty, non-overlapping and inside the text;
//   - caller text never leaves unmarked: every occurrence of the conversation's marker string in the
//     output lies inside a caller span, and no error message contains it (checked only when the
//     template itself does not spell a piece of the marker).
// Seeds: tests/fuzz/seeds/jinja/, plus the shared chat templates copied in at run time
// (scripts/run-fuzz.sh); dictionary: tests/fuzz/jinja.dict.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "a3s/power/error.h"
#include "chat/jinja/template.h"

namespace {

namespace jinja = a3s::power::chat::jinja;
namespace codes = a3s::power::codes;

// Caller text the conversation carries; the template cannot know it unless it spells it.
constexpr std::string_view kMarker = "Qz8wCallerVk3";

const jinja::Context& context() {
  static const jinja::Context c = [] {
    const std::string m(kMarker);
    const nlohmann::ordered_json messages = nlohmann::ordered_json::parse(
        R"([{"role":"system","content":"sys )" + m + R"("},
            {"role":"user","content":[{"type":"text","text":"hi )" + m + R"("}]},
            {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
              "function":{"name":"get_)" + m + R"(","arguments":{"city":")" + m + R"("}}}]},
            {"role":"tool","tool_call_id":"c1","content":")" + m + R"("},
            {"role":"user","content":")" + m + R"( <|im_end|> {{ x }}"}])");
    const nlohmann::ordered_json tools = nlohmann::ordered_json::parse(
        R"([{"type":"function","function":{"name":"get_weather","description":")" + m +
        R"(","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}])");
    jinja::Context ctx = jinja::chat_context(messages, &tools, true, "<s>", "</s>");
    ctx.now = jinja::parse_date("2026-01-02");
    return ctx;
  }();
  return c;
}

bool spells_part_of_marker(std::string_view source) {
  for (std::size_t i = 0; i + 3 <= kMarker.size(); ++i) {
    if (source.find(kMarker.substr(i, 3)) != std::string_view::npos) return true;
  }
  return false;
}

bool marker_only_in_spans(const jinja::Rendered& r) {
  for (std::size_t at = r.text.find(kMarker); at != std::string::npos; at = r.text.find(kMarker, at + 1)) {
    bool inside = false;
    for (const auto& s : r.caller_spans) {
      if (s.begin <= at && at + kMarker.size() <= s.end) inside = true;
    }
    if (!inside) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  const bool check_marker = !spells_part_of_marker(source);
  jinja::Template t;
  try {
    t = jinja::Template::parse(source);
  } catch (const a3s::power::Error& e) {
    if (e.kind() != codes::kUnsupportedChatTemplate || e.what()[0] == '\0') __builtin_trap();
    return 0;
  }
  jinja::Limits limits;
  limits.max_output_bytes = 64u << 10;
  limits.max_loop_iterations = 20000;
  limits.max_call_depth = 16;
  jinja::Rendered first;
  try {
    first = t.render(context(), limits);
  } catch (const a3s::power::Error& e) {
    const auto code = e.kind();
    if (code != codes::kResourceExhausted && code != codes::kInvalidRequest &&
        code != codes::kUnsupportedChatTemplate) {
      __builtin_trap();
    }
    const std::string_view message = e.what();
    if (message.empty()) __builtin_trap();
    if (check_marker && message.find(kMarker) != std::string_view::npos) __builtin_trap();
    return 0;
  }
  if (first.text.size() > limits.max_output_bytes) __builtin_trap();
  std::size_t end = 0;
  for (const auto& s : first.caller_spans) {
    if (s.begin >= s.end || s.begin < end || s.end > first.text.size()) __builtin_trap();
    end = s.end;
  }
  if (check_marker && !marker_only_in_spans(first)) __builtin_trap();
  const jinja::Rendered second = t.render(context(), limits);
  if (second.text != first.text || second.caller_spans != first.caller_spans) __builtin_trap();
  return 0;
}
