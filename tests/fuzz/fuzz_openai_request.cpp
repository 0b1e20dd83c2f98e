// libFuzzer target for the request parsing of the generating routes (openai/openai_request.h,
// server/anthropic_request.h, server/responses_request.h): the first byte of the input picks the
// route (modulo 5: 0 POST /v1/chat/completions, 1 POST /v1/completions, 2 POST /v1/embeddings, 3 POST
// /v1/messages, 4 POST /v1/responses), the rest is the request body. parse_json_object and the route's parser must give a parsed request or
// refuse with ApiError carrying a non-empty message; no other exception may escape. Properties:
//   - a refusal's message and param do not depend on the content of the body's string values of 12
//     bytes or more (replaced by other bytes of the same length, the same refusal): errors name
//     fields, never echo or describe their values. Values that are syntax rather than content are
//     kept: those of the members "type", "name", "tool_choice", "grammar", "pattern", "format" and
//     "$ref" (a grammar's or a pattern's error names the line and column of the fault, and a tag or a
//     function name decides what the rest of the item is);
//   - the same body parsed twice gives the same outcome (the parsers keep no state);
//   - an accepted request has finite sampling parameters inside the documented ranges (logit_bias
//     sorted by unique ids, biases in [-100, 100]; echo only on completions; n in 1..8; logprobs
//     off or 0..20 alternatives, not with echo; embeddings: 1..2048 inputs, none empty; messages:
//     temperature in [0, 1], max_tokens >= 1, at most 16 stop sequences; responses: at least one
//     message, max_output_tokens >= 1 when given).
// Seeds: tests/fuzz/seeds/openai_request/; dictionary: tests/fuzz/openai_request.dict.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/anthropic_request.h"
#include "server/api_error.h"
#include "openai/openai_request.h"
#include "server/responses_request.h"

namespace {

using a3s::power::server::ApiError;
using nlohmann::json;

constexpr std::size_t kMinEchoBytes = 12;

struct Outcome {
  bool accepted = false;
  std::string message;  // refusal: the ApiError's message and param
  std::string param;
};

enum class Route { kChat, kCompletions, kEmbeddings, kMessages, kResponses };

// The sampling parameters every accepted generation request must have.
void check_sampling(const a3s::power::SamplingParams& s) {
  if (!std::isfinite(s.temperature) || s.temperature < 0 || s.temperature > 2) __builtin_trap();
  if (!std::isfinite(s.top_p) || s.top_p <= 0 || s.top_p > 1) __builtin_trap();
  if (!std::isfinite(s.min_p) || s.min_p < 0 || s.min_p > 1) __builtin_trap();
  if (s.top_k < 0) __builtin_trap();
  if (!std::isfinite(s.repeat_penalty) || s.repeat_penalty <= 0) __builtin_trap();
  if (!(std::fabs(s.presence_penalty) <= 2) || !(std::fabs(s.frequency_penalty) <= 2)) __builtin_trap();
}

Outcome parse(Route route, const std::string& body) {
  Outcome out;
  try {
    const json j = a3s::power::server::parse_json_object(body);
    if (route == Route::kEmbeddings) {
      const auto parsed = a3s::power::server::parse_embedding(j);
      const auto& r = parsed.request;
      const size_t n = r.texts.empty() ? r.token_ids.size() : r.texts.size();
      if (n == 0 || n > 2048 || (!r.texts.empty() && !r.token_ids.empty())) __builtin_trap();
      for (const auto& t : r.texts)
        if (t.empty()) __builtin_trap();
      for (const auto& ids : r.token_ids)
        for (auto id : ids)
          if (ids.empty() || id < 0) __builtin_trap();
      out.accepted = true;
      return out;
    }
    if (route == Route::kResponses) {
      const auto parsed = a3s::power::server::parse_response_request(j);
      check_sampling(parsed.request.sampling);
      if (!parsed.request.messages || parsed.request.messages->empty()) __builtin_trap();
      if (parsed.request.max_tokens && *parsed.request.max_tokens < 1) __builtin_trap();
      out.accepted = true;
      return out;
    }
    if (route == Route::kMessages) {
      const auto parsed = a3s::power::server::parse_anthropic_messages(j);
      check_sampling(parsed.request.sampling);
      if (parsed.request.sampling.temperature > 1) __builtin_trap();
      if (!parsed.request.max_tokens || *parsed.request.max_tokens < 1) __builtin_trap();
      if (parsed.request.stop.size() > 16 || !parsed.request.messages || parsed.request.messages->empty()) {
        __builtin_trap();
      }
      out.accepted = true;
      return out;
    }
    const bool chat = route == Route::kChat;
    const auto parsed = chat ? a3s::power::server::parse_chat_completion(j)
                             : a3s::power::server::parse_text_completion(j);
    const auto& s = parsed.request.sampling;
    check_sampling(s);
    if (parsed.request.max_tokens && *parsed.request.max_tokens < 0) __builtin_trap();
    // logit_bias: sorted by unique, non-negative ids, biases in [-100, 100] (what Sampler expects).
    for (std::size_t i = 0; i < s.logit_bias.size(); ++i) {
      const auto& b = s.logit_bias[i];
      if (b.id < 0 || !(std::fabs(b.bias) <= 100) || (i > 0 && b.id <= s.logit_bias[i - 1].id)) __builtin_trap();
    }
    if (chat && parsed.echo) __builtin_trap();  // chat has no echo
    // n: 1..8 choices; log probabilities off (-1) or 0..20 alternatives, never with echo.
    if (parsed.n < 1 || parsed.n > 8) __builtin_trap();
    const int lp = parsed.request.logprobs;
    if (lp < -1 || lp > 20 || (parsed.echo && lp >= 0)) __builtin_trap();
    out.accepted = true;
  } catch (const ApiError& e) {
    out.message = e.what();
    out.param = e.param();
    if (out.message.empty()) __builtin_trap();
  }
  return out;
}

// Members whose string values are syntax, not content (kept by replace_long_strings).
bool syntax_member(const std::string& key) {
  return key == "type" || key == "name" || key == "tool_choice" || key == "grammar" || key == "pattern" ||
         key == "format" || key == "$ref";
}

// The document with every string value of 12 bytes or more replaced by other ASCII bytes of the same
// length (member names kept, and the values of syntax members).
void replace_long_strings(json& j, int depth) {
  if (depth > 64) return;
  if (j.is_string()) {
    auto& s = j.get_ref<std::string&>();
    if (s.size() >= kMinEchoBytes) {
      for (char& c : s) c = c == 'q' ? 'w' : 'q';
    }
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it->is_string() && syntax_member(it.key())) continue;
      replace_long_strings(it.value(), depth + 1);
    }
  } else if (j.is_array()) {
    for (auto& e : j) replace_long_strings(e, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Route route = static_cast<Route>(data[0] % 5);
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome first = parse(route, body);
  const Outcome second = parse(route, body);
  if (first.accepted != second.accepted || first.message != second.message || first.param != second.param) {
    __builtin_trap();
  }
  if (first.accepted) return 0;
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  replace_long_strings(j, 0);
  const Outcome other = parse(route, j.dump());
  if (other.accepted || other.message != first.message || other.param != first.param) __builtin_trap();
  return 0;
}
