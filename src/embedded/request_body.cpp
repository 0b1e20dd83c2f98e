#include "embedded/request_body.h"

#include <cmath>

#include "base/json_depth.h"
#include "privacy/wipe_text.h"

namespace a3s::power::embedded {
namespace {

using ojson = nlohmann::ordered_json;

// Deeper JSON in a typed field is refused before the body is written out (writing recurses).
constexpr int kMaxFieldDepth = 128;

// JSON text of a typed field, parsed with its key order kept. Its value is never quoted in the error.
ojson json_field(const std::string& text, const std::string& field) {
  ojson j = ojson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw RequestError(codes::kInvalidJson, "'" + field + "' is not valid JSON", field);
  if (nests_deeper_than(j, kMaxFieldDepth)) {
    privacy::wipe_json(j);
    throw RequestError(codes::kInvalidRequest,
                       "'" + field + "' nests deeper than " + std::to_string(kMaxFieldDepth) + " levels", field);
  }
  return j;
}

// A sampling number, which JSON (and so the request) can only carry when finite.
void add_number(ojson& body, const char* field, const std::optional<double>& v) {
  if (!v) return;
  if (!std::isfinite(*v))
    throw RequestError(codes::kInvalidRequest, std::string("'") + field + "' must be a finite number", field);
  body[field] = *v;
}

void add_sampling(ojson& body, const Sampling& s) {
  add_number(body, "temperature", s.temperature);
  add_number(body, "top_p", s.top_p);
  if (s.top_k) body["top_k"] = *s.top_k;
  add_number(body, "min_p", s.min_p);
  add_number(body, "repeat_penalty", s.repeat_penalty);
  add_number(body, "presence_penalty", s.presence_penalty);
  add_number(body, "frequency_penalty", s.frequency_penalty);
  if (s.seed) body["seed"] = *s.seed;
  if (!s.logit_bias.empty()) {
    ojson lb = ojson::object();
    for (const LogitBias& b : s.logit_bias) {
      const std::string key = std::to_string(b.token);  // a negative id is refused by the parser
      if (lb.contains(key)) throw RequestError(codes::kInvalidRequest, "'logit_bias' names a token twice", "logit_bias");
      lb[key] = b.bias;
    }
    body["logit_bias"] = std::move(lb);
  }
}

void add_limits(ojson& body, const std::optional<int>& max_tokens, const std::vector<std::string>& stop) {
  if (max_tokens) body["max_tokens"] = *max_tokens;
  if (!stop.empty()) body["stop"] = stop;
}

ojson tool_call_json(const ToolCall& c) {
  ojson j = ojson::object();
  if (!c.id.empty()) j["id"] = c.id;
  j["type"] = "function";
  j["function"] = {{"name", c.name}, {"arguments", c.arguments}};
  return j;
}

ojson message_json(const Message& m) {
  ojson j = ojson::object();
  j["role"] = m.role;
  // An assistant turn that only calls tools has no content.
  if (!(m.content.empty() && !m.tool_calls.empty())) j["content"] = m.content;
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.tool_calls.empty()) {
    ojson calls = ojson::array();
    for (const ToolCall& c : m.tool_calls) calls.push_back(tool_call_json(c));
    j["tool_calls"] = std::move(calls);
  }
  return j;
}

ojson tools_json(const std::vector<Tool>& tools) {
  ojson out = ojson::array();
  for (size_t i = 0; i < tools.size(); ++i) {
    const Tool& t = tools[i];
    ojson fn = ojson::object();
    fn["name"] = t.name;
    if (!t.description.empty()) fn["description"] = t.description;
    if (!t.parameters_json.empty()) {
      fn["parameters"] = json_field(t.parameters_json, "tools[" + std::to_string(i) + "].function.parameters");
    }
    out.push_back({{"type", "function"}, {"function", std::move(fn)}});
  }
  return out;
}

}  // namespace

ojson chat_body(const ChatRequest& request, const std::string& model) {
  ojson body = ojson::object();
  try {
    body["model"] = model;
    ojson messages = ojson::array();
    for (const Message& m : request.messages) messages.push_back(message_json(m));
    body["messages"] = std::move(messages);
    add_sampling(body, request.sampling);
    add_limits(body, request.max_tokens, request.stop);
    if (!request.tools.empty()) {
      body["tools"] = tools_json(request.tools);
      switch (request.tool_choice) {
        case ToolChoice::kAuto:
          body["tool_choice"] = "auto";
          break;
        case ToolChoice::kNone:
          body["tool_choice"] = "none";
          break;
        case ToolChoice::kRequired:
          body["tool_choice"] = "required";
          break;
        case ToolChoice::kFunction:
          body["tool_choice"] = {{"type", "function"}, {"function", {{"name", request.tool_choice_function}}}};
          break;
      }
      body["parallel_tool_calls"] = request.parallel_tool_calls;
    } else if (request.tool_choice == ToolChoice::kRequired || request.tool_choice == ToolChoice::kFunction) {
      // The parser's error: a required call without tools.
      body["tool_choice"] = request.tool_choice == ToolChoice::kRequired
                                ? ojson("required")
                                : ojson({{"type", "function"}, {"function", {{"name", request.tool_choice_function}}}});
    }
    if (!request.response_format_json.empty()) {
      body["response_format"] = json_field(request.response_format_json, "response_format");
    }
    if (!request.grammar.empty()) body["grammar"] = request.grammar;
    if (!request.chat_template_kwargs_json.empty()) {
      body["chat_template_kwargs"] = json_field(request.chat_template_kwargs_json, "chat_template_kwargs");
    }
    if (!request.reasoning_effort.empty()) body["reasoning_effort"] = request.reasoning_effort;
  } catch (...) {
    privacy::wipe_json(body);
    throw;
  }
  return body;
}

ojson completion_body(const CompletionRequest& request, const std::string& model) {
  ojson body = ojson::object();
  try {
    body["model"] = model;
    body["prompt"] = request.prompt;
    if (request.suffix) body["suffix"] = *request.suffix;
    add_sampling(body, request.sampling);
    add_limits(body, request.max_tokens, request.stop);
    if (!request.grammar.empty()) body["grammar"] = request.grammar;
  } catch (...) {
    privacy::wipe_json(body);
    throw;
  }
  return body;
}

}  // namespace a3s::power::embedded
