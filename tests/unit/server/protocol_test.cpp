// OpenAI request validation, response shapes, SSE framing, routing, error bodies, metrics text
// and API-key checks.
#include <gtest/gtest.h>

#include <limits>

#include <openssl/evp.h>

#include "server/api_error.h"
#include "server/auth.h"
#include "server/metrics.h"
#include "server/anthropic_request.h"
#include "server/anthropic_response.h"
#include "openai/openai_request.h"
#include "server/openai_response.h"
#include "server/responses_request.h"
#include "server/responses_response.h"
#include "server/router.h"

namespace a3s::power::server {
namespace {

using nlohmann::json;

ParsedCompletion chat(const json& j) { return parse_chat_completion(j); }

json chat_body(json extra = json::object()) {
  json j = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "hi"}}}}};
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = *it;
  return j;
}

// Expects an ApiError with the given code and param.
void expect_error(const json& body, const std::string& code, const std::string& param, bool is_chat = true) {
  try {
    if (is_chat) parse_chat_completion(body); else parse_text_completion(body);
    FAIL() << "accepted: " << body.dump();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), code) << body.dump();
    EXPECT_EQ(e.param(), param) << body.dump();
    EXPECT_EQ(http_status_for(e.code()), 400);
  }
}

TEST(OpenAIRequest, ChatDefaultsFollowOpenAI) {
  ParsedCompletion p = chat(chat_body());
  EXPECT_EQ(p.request.model, "m");
  EXPECT_FLOAT_EQ(p.request.sampling.temperature, 1.0f);
  EXPECT_FLOAT_EQ(p.request.sampling.top_p, 1.0f);
  EXPECT_EQ(p.request.sampling.top_k, 0);
  EXPECT_FLOAT_EQ(p.request.sampling.min_p, 0.0f);
  EXPECT_FLOAT_EQ(p.request.sampling.repeat_penalty, 1.0f);
  EXPECT_FALSE(p.request.sampling.seed.has_value());
  EXPECT_FALSE(p.request.max_tokens.has_value());
  EXPECT_FALSE(p.stream);
  ASSERT_TRUE(p.request.messages.has_value());
  EXPECT_EQ((*p.request.messages)[0].content, "hi");
}

TEST(OpenAIRequest, ChatAcceptsEveryAllowedField) {
  ParsedCompletion p = chat(chat_body({{"max_tokens", 7}, {"temperature", 0}, {"top_p", 0.5}, {"seed", 42},
                                       {"stop", {"a", "b"}}, {"presence_penalty", 0.5},
                                       {"frequency_penalty", -0.5}, {"n", 1}, {"user", "u"},
                                       {"stream", true}, {"stream_options", {{"include_usage", true}}},
                                       {"top_k", 5}, {"min_p", 0.1}, {"repeat_penalty", 1.1}}));
  EXPECT_EQ(*p.request.max_tokens, 7);
  EXPECT_FLOAT_EQ(p.request.sampling.temperature, 0.0f);
  EXPECT_FLOAT_EQ(p.request.sampling.top_p, 0.5f);
  EXPECT_EQ(*p.request.sampling.seed, 42u);
  EXPECT_EQ(p.request.stop, (std::vector<std::string>{"a", "b"}));
  EXPECT_FLOAT_EQ(p.request.sampling.presence_penalty, 0.5f);
  EXPECT_FLOAT_EQ(p.request.sampling.frequency_penalty, -0.5f);
  EXPECT_TRUE(p.stream);
  EXPECT_TRUE(p.include_usage);
  EXPECT_EQ(p.request.sampling.top_k, 5);
  EXPECT_FLOAT_EQ(p.request.sampling.min_p, 0.1f);
  EXPECT_FLOAT_EQ(p.request.sampling.repeat_penalty, 1.1f);
}

TEST(OpenAIRequest, MaxCompletionTokensAndContentParts) {
  json b = chat_body({{"max_completion_tokens", 3}});
  b["messages"] = {{{"role", "developer"}, {"content", "sys"}},
                   {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "a"}}, {{"type", "text"}, {"text", "b"}}}}}};
  ParsedCompletion p = chat(b);
  EXPECT_EQ(*p.request.max_tokens, 3);
  EXPECT_EQ((*p.request.messages)[0].role, chat::Role::kSystem);
  EXPECT_EQ((*p.request.messages)[1].content, "a\nb");
}

TEST(OpenAIRequest, UnsupportedFeaturesAreRefusedByName) {
  for (const char* f : {"functions", "prediction", "audio", "modalities"}) {
    expect_error(chat_body({{f, json::array({1})}}), "unsupported_field", f);
  }
  expect_error(chat_body({{"frobnicate", 1}}), "unsupported_field", "");  // an unknown name is not echoed
  // Explicitly off is not a request for the feature.
  EXPECT_NO_THROW(chat(chat_body({{"logprobs", false}, {"tools", nullptr}})));
}

json weather_tool() {
  return {{"type", "function"},
          {"function",
           {{"name", "get_weather"},
            {"description", "Weather of a city"},
            {"parameters", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}}}}};
}

TEST(OpenAIRequest, ToolsAreReadInTheClientsKeyOrder) {
  const std::string raw =
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":)"
      R"({"name":"f","parameters":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer"}}}}}]})";
  const ParsedCompletion p = parse_chat_completion(json::parse(raw), raw);
  EXPECT_TRUE(p.request.parse_tool_calls);
  EXPECT_EQ(p.tools.choice.kind, ToolChoice::Kind::kAuto);
  EXPECT_TRUE(p.tools.parallel);
  const auto& props = p.request.tools[0]["function"]["parameters"]["properties"];
  ASSERT_EQ(props.size(), 2u);
  EXPECT_EQ(props.begin().key(), "zeta");  // as sent, not sorted
}

TEST(OpenAIRequest, ToolChoiceForms) {
  const json tools = json::array({weather_tool()});
  EXPECT_EQ(chat(chat_body({{"tools", tools}, {"tool_choice", "required"}})).tools.choice.kind,
            ToolChoice::Kind::kRequired);
  const ParsedCompletion named = chat(chat_body(
      {{"tools", tools}, {"tool_choice", {{"type", "function"}, {"function", {{"name", "get_weather"}}}}}}));
  EXPECT_EQ(named.tools.choice.kind, ToolChoice::Kind::kNamed);
  EXPECT_EQ(named.tools.choice.name, "get_weather");
  // "none": the tools are neither rendered nor read back.
  const ParsedCompletion none = chat(chat_body({{"tools", tools}, {"tool_choice", "none"}}));
  EXPECT_FALSE(none.request.parse_tool_calls);
  EXPECT_TRUE(none.request.tools.is_null());
  EXPECT_FALSE(chat(chat_body({{"tools", tools}, {"parallel_tool_calls", false}})).tools.parallel);
  // Without tools, "auto" and "none" mean nothing.
  EXPECT_FALSE(chat(chat_body({{"tool_choice", "auto"}})).request.parse_tool_calls);
}

TEST(OpenAIRequest, MalformedToolsNameTheField) {
  const json tools = json::array({weather_tool()});
  json other = weather_tool();
  other["type"] = "custom";
  json dup = json::array({weather_tool(), weather_tool()});
  json bad_params = weather_tool();
  bad_params["function"]["parameters"] = "object";
  json extra = weather_tool();
  extra["function"]["SECRET"] = 1;
  expect_error(chat_body({{"tools", json::array()}}), "invalid_request_error", "tools");
  expect_error(chat_body({{"tools", json::object()}}), "invalid_request_error", "tools");
  expect_error(chat_body({{"tools", json::array({1})}}), "invalid_request_error", "tools[0]");
  expect_error(chat_body({{"tools", json::array({other})}}), "unsupported_field", "tools[0].type");
  expect_error(chat_body({{"tools", dup}}), "invalid_request_error", "tools[1].function.name");
  expect_error(chat_body({{"tools", json::array({bad_params})}}), "invalid_request_error", "tools[0].function.parameters");
  expect_error(chat_body({{"tools", json::array({extra})}}), "invalid_request_error", "tools[0].function");
  for (const char* not_object : {R"({"type": "string"})", R"({"type": ["object", "null"]})",
                                 R"({"type": "object", "nullable": true})", R"({"enum": [1, 2]})"}) {
    json t = weather_tool();
    t["function"]["parameters"] = json::parse(not_object);
    expect_error(chat_body({{"tools", json::array({t})}}), "invalid_request_error", "tools[0].function.parameters");
  }
  json empty_params = weather_tool();
  empty_params["function"]["parameters"] = json::object();  // any object
  EXPECT_NO_THROW(chat(chat_body({{"tools", json::array({empty_params})}})));
  expect_error(chat_body({{"tools", tools}, {"tool_choice", "sometimes"}}), "invalid_request_error", "tool_choice");
  expect_error(chat_body({{"tools", tools}, {"tool_choice", {{"type", "function"}, {"function", {{"name", "nope"}}}}}}),
               "invalid_request_error", "tool_choice");
  expect_error(chat_body({{"tool_choice", "required"}}), "invalid_request_error", "tool_choice");
  expect_error(chat_body({{"tools", tools}, {"parallel_tool_calls", "yes"}}), "invalid_request_error",
               "parallel_tool_calls");
  // Text completions take no tools.
  expect_error(json{{"model", "m"}, {"prompt", "p"}, {"tools", tools}}, "unsupported_field", "tools", false);
}

TEST(OpenAIRequest, ResponseFormatAndGrammarBecomeTheReplysGrammar) {
  EXPECT_EQ(chat(chat_body()).request.grammar, nullptr);
  EXPECT_EQ(chat(chat_body({{"response_format", {{"type", "text"}}}})).request.grammar, nullptr);
  EXPECT_NE(chat(chat_body({{"response_format", {{"type", "json_object"}}}})).request.grammar, nullptr);
  const json schema = {{"type", "object"},
                       {"properties", {{"answer", {{"type", "string"}, {"maxLength", 8}}}}},
                       {"required", {"answer"}},
                       {"additionalProperties", false}};
  const ParsedCompletion p = chat(chat_body(
      {{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "a"}, {"schema", schema}, {"strict", true}}}}}}));
  ASSERT_NE(p.request.grammar, nullptr);
  EXPECT_NE(chat(chat_body({{"grammar", "root ::= \"yes\" | \"no\""}})).request.grammar, nullptr);
  EXPECT_NE(parse_text_completion({{"model", "m"}, {"prompt", "p"}, {"grammar", "root ::= [0-9]+"}}).request.grammar,
            nullptr);
  // With tool_choice "none" the tools are off, and a structured reply is fine.
  const json tools = json::array({weather_tool()});
  EXPECT_NE(chat(chat_body({{"tools", tools}, {"tool_choice", "none"}, {"response_format", {{"type", "json_object"}}}}))
                .request.grammar,
            nullptr);
}

TEST(OpenAIRequest, StructuredOutputErrorsNameTheFieldAndKeyword) {
  const std::string secret = "SECRET-SCHEMA-TEXT";
  auto error_of = [](const json& body) -> ApiError {
    try {
      chat(body);
    } catch (const ApiError& e) {
      return e;
    }
    ADD_FAILURE() << "accepted: " << body.dump();
    return ApiError(codes::kInternal, "none");
  };
  // A keyword the grammar cannot enforce is refused by name, never ignored.
  const json multiple = {{"type", "object"}, {"properties", {{secret, {{"type", "integer"}, {"multipleOf", 3}}}}}};
  ApiError e = error_of(chat_body({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "n"}, {"schema", multiple}}}}}}));
  EXPECT_EQ(e.code(), "unsupported_field");
  EXPECT_EQ(e.param(), "response_format");
  EXPECT_NE(std::string(e.what()).find("multipleOf"), std::string::npos) << e.what();
  const json bad_enum = {{"enum", secret}};
  e = error_of(chat_body({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"schema", bad_enum}}}}}}));
  EXPECT_EQ(e.code(), "invalid_request_error");
  EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos) << e.what();
  e = error_of(chat_body({{"grammar", "root ::= \"" + secret}}));
  EXPECT_EQ(e.param(), "grammar");
  EXPECT_NE(std::string(e.what()).find("grammar:1:"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos) << e.what();
  expect_error(chat_body({{"response_format", {{"type", "xml"}}}}), "invalid_request_error", "response_format.type");
  expect_error(chat_body({{"response_format", "json"}}), "invalid_request_error", "response_format");
  expect_error(chat_body({{"response_format", {{"type", "json_schema"}}}}), "invalid_request_error",
               "response_format.json_schema");
  expect_error(chat_body({{"response_format", {{"type", "json_schema"}, {"json_schema", {{"name", "n"}}}}}}),
               "invalid_request_error", "response_format.json_schema.schema");
  expect_error(chat_body({{"response_format", {{"type", "json_object"}}}, {"grammar", "root ::= \"x\""}}),
               "invalid_request_error", "grammar");
  expect_error(chat_body({{"grammar", 5}}), "invalid_request_error", "grammar");
  expect_error(chat_body({{"tools", json::array({weather_tool()})}, {"response_format", {{"type", "json_object"}}}}),
               "invalid_request_error", "response_format");
  expect_error(json{{"model", "m"}, {"prompt", "p"}, {"response_format", {{"type", "json_object"}}}}, "unsupported_field",
               "response_format", false);
}

TEST(OpenAIRequest, RequiredAndNamedToolChoicesAskForACall) {
  const json tools = json::array({weather_tool()});
  const ParsedCompletion r = chat(chat_body({{"tools", tools}, {"tool_choice", "required"}, {"parallel_tool_calls", false}}));
  EXPECT_TRUE(r.request.tool_call_required);
  EXPECT_EQ(r.request.tool_call_name, "");
  EXPECT_FALSE(r.request.parallel_tool_calls);
  const ParsedCompletion n = chat(chat_body(
      {{"tools", tools}, {"tool_choice", {{"type", "function"}, {"function", {{"name", "get_weather"}}}}}}));
  EXPECT_TRUE(n.request.tool_call_required);
  EXPECT_EQ(n.request.tool_call_name, "get_weather");
  EXPECT_FALSE(chat(chat_body({{"tools", tools}})).request.tool_call_required);
}

TEST(OpenAIRequest, LogitBiasOnBothEndpointsSortedByTokenId) {
  const json bias = {{"31999", -100}, {"7", 2.5}, {"0", 100}, {"12", -0.25}};
  for (bool is_chat : {true, false}) {
    json b = is_chat ? chat_body() : json{{"model", "m"}, {"prompt", "hi"}};
    b["logit_bias"] = bias;
    const ParsedCompletion p = is_chat ? parse_chat_completion(b) : parse_text_completion(b);
    const auto& lb = p.request.sampling.logit_bias;
    ASSERT_EQ(lb.size(), 4u);
    EXPECT_EQ(lb[0].id, 0);
    EXPECT_FLOAT_EQ(lb[0].bias, 100.0f);
    EXPECT_EQ(lb[1].id, 7);
    EXPECT_FLOAT_EQ(lb[1].bias, 2.5f);
    EXPECT_EQ(lb[2].id, 12);
    EXPECT_FLOAT_EQ(lb[2].bias, -0.25f);
    EXPECT_EQ(lb[3].id, 31999);
    EXPECT_FLOAT_EQ(lb[3].bias, -100.0f);
  }
  EXPECT_TRUE(chat(chat_body({{"logit_bias", json::object()}})).request.sampling.logit_bias.empty());
  EXPECT_TRUE(chat(chat_body({{"logit_bias", nullptr}})).request.sampling.logit_bias.empty());
}

TEST(OpenAIRequest, BadLogitBiasIsAClear400ThatRepeatsNothing) {
  // Keys: only canonical decimal token ids (so no two keys can name one token).
  for (const char* key : {"-1", "01", "1.0", "1e3", " 1", "1 ", "+1", "", "x", "2147483648", "99999999999"}) {
    const json body = chat_body({{"logit_bias", {{key, 1}}}});
    expect_error(body, "invalid_request_error", "logit_bias");
    try {
      chat(body);
    } catch (const ApiError& e) {
      if (std::string(key).size() > 1) {
        EXPECT_EQ(std::string(e.what()).find(key), std::string::npos) << e.what();
      }
    }
  }
  // Values: numbers in [-100, 100].
  for (const json& v : {json(100.5), json(-101), json("1"), json(true), json(nullptr), json::array({1}),
                        json(1e300)}) {
    expect_error(chat_body({{"logit_bias", {{"5", v}}}}), "invalid_request_error", "logit_bias");
  }
  // Not an object; too many entries.
  expect_error(chat_body({{"logit_bias", json::array({1})}}), "invalid_request_error", "logit_bias");
  expect_error(chat_body({{"logit_bias", "5:1"}}), "invalid_request_error", "logit_bias");
  json many = json::object();
  for (int i = 0; i < 1025; ++i) many[std::to_string(i)] = 1;
  expect_error(chat_body({{"logit_bias", many}}), "invalid_request_error", "logit_bias");
  many.erase("1024");
  EXPECT_EQ(chat(chat_body({{"logit_bias", many}})).request.sampling.logit_bias.size(), 1024u);
  expect_error(json{{"model", "m"}, {"prompt", "hi"}, {"logit_bias", {{"a", 1}}}}, "invalid_request_error",
               "logit_bias", /*is_chat=*/false);
}

TEST(OpenAIRequest, EchoOnTextCompletionsOnly) {
  const json text = {{"model", "m"}, {"prompt", "hi"}};
  EXPECT_FALSE(parse_text_completion(text).echo);
  json b = text;
  b["echo"] = true;
  EXPECT_TRUE(parse_text_completion(b).echo);
  b["echo"] = false;
  EXPECT_FALSE(parse_text_completion(b).echo);
  b["echo"] = "yes";
  expect_error(b, "invalid_request_error", "echo", /*is_chat=*/false);
  b["echo"] = 1;
  expect_error(b, "invalid_request_error", "echo", /*is_chat=*/false);
  // Chat has no echo: true is refused by name, false is no request for it.
  expect_error(chat_body({{"echo", true}}), "unsupported_field", "echo");
  EXPECT_FALSE(chat(chat_body({{"echo", false}})).echo);
}

TEST(OpenAIRequest, SuffixOnCompletionsOnly) {
  EXPECT_FALSE(parse_text_completion({{"model", "m"}, {"prompt", "p"}}).request.suffix.has_value());
  EXPECT_EQ(parse_text_completion({{"model", "m"}, {"prompt", "p"}, {"suffix", "s"}}).request.suffix, "s");
  expect_error({{"model", "m"}, {"prompt", "p"}, {"suffix", 3}}, "invalid_request_error", "suffix", /*is_chat=*/false);
  expect_error(chat_body({{"suffix", "s"}}), "unsupported_field", "suffix");
  // A prompt of token ids is refused as such, not as several prompts.
  try {
    parse_text_completion({{"model", "m"}, {"prompt", {1, 2, 3}}});
    ADD_FAILURE() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.param(), "prompt");
    EXPECT_NE(std::string(e.what()).find("token ids"), std::string::npos) << e.what();
  }
}

TEST(OpenAIRequest, ReasoningEffortOnChatOnly) {
  EXPECT_EQ(chat(chat_body()).request.reasoning_effort, "");
  for (const char* e : {"minimal", "low", "medium", "high"}) {
    EXPECT_EQ(chat(chat_body({{"reasoning_effort", e}})).request.reasoning_effort, e);
  }
  expect_error(chat_body({{"reasoning_effort", "max"}}), "invalid_request_error", "reasoning_effort");
  expect_error(chat_body({{"reasoning_effort", 3}}), "invalid_request_error", "reasoning_effort");
  expect_error({{"model", "m"}, {"prompt", "p"}, {"reasoning_effort", "low"}}, "unsupported_field", "reasoning_effort",
               /*is_chat=*/false);
}

TEST(OpenAIRequest, NChoicesFromOneToEight) {
  EXPECT_EQ(chat(chat_body()).n, 1);
  EXPECT_EQ(chat(chat_body({{"n", 8}})).n, 8);
  EXPECT_EQ(parse_text_completion({{"model", "m"}, {"prompt", "hi"}, {"n", 3}}).n, 3);
  for (const json& bad : {json(0), json(9), json(-1), json(1.5), json("2"), json(true)}) {
    expect_error(chat_body({{"n", bad}}), "invalid_request_error", "n");
  }
}

TEST(OpenAIRequest, ChatLogprobsAndTopLogprobs) {
  EXPECT_EQ(chat(chat_body()).request.logprobs, -1);
  EXPECT_EQ(chat(chat_body({{"logprobs", false}})).request.logprobs, -1);
  EXPECT_EQ(chat(chat_body({{"logprobs", true}})).request.logprobs, 0);
  EXPECT_EQ(chat(chat_body({{"logprobs", true}, {"top_logprobs", 20}})).request.logprobs, 20);
  EXPECT_EQ(chat(chat_body({{"logprobs", true}, {"top_logprobs", 0}})).request.logprobs, 0);
  expect_error(chat_body({{"logprobs", 1}}), "invalid_request_error", "logprobs");
  expect_error(chat_body({{"logprobs", true}, {"top_logprobs", 21}}), "invalid_request_error", "top_logprobs");
  expect_error(chat_body({{"logprobs", true}, {"top_logprobs", -1}}), "invalid_request_error", "top_logprobs");
  expect_error(chat_body({{"logprobs", true}, {"top_logprobs", "5"}}), "invalid_request_error", "top_logprobs");
  // top_logprobs asks for nothing without logprobs: true.
  expect_error(chat_body({{"top_logprobs", 3}}), "invalid_request_error", "top_logprobs");
  expect_error(chat_body({{"logprobs", false}, {"top_logprobs", 3}}), "invalid_request_error", "top_logprobs");
}

TEST(OpenAIRequest, CompletionLogprobsAreACountAndNotWithEcho) {
  const json text = {{"model", "m"}, {"prompt", "hi"}};
  EXPECT_EQ(parse_text_completion(text).request.logprobs, -1);
  json b = text;
  b["logprobs"] = nullptr;
  EXPECT_EQ(parse_text_completion(b).request.logprobs, -1);
  b["logprobs"] = 0;
  EXPECT_EQ(parse_text_completion(b).request.logprobs, 0);
  b["logprobs"] = 5;
  EXPECT_EQ(parse_text_completion(b).request.logprobs, 5);
  for (const json& bad : {json(21), json(-1), json(true), json(2.5), json("3")}) {
    b["logprobs"] = bad;
    expect_error(b, "invalid_request_error", "logprobs", /*is_chat=*/false);
  }
  b["logprobs"] = 2;
  b["echo"] = true;
  expect_error(b, "unsupported_field", "logprobs", /*is_chat=*/false);
  json t = text;
  t["top_logprobs"] = 2;  // the chat field, named
  expect_error(t, "unsupported_field", "top_logprobs", /*is_chat=*/false);
}

TEST(OpenAIRequest, EmbeddingInputsInEveryFormAndTheirLimits) {
  auto embedding = [](json input) { return parse_embedding({{"model", "m"}, {"input", std::move(input)}}); };
  EXPECT_EQ(embedding("a").request.texts, (std::vector<std::string>{"a"}));
  EXPECT_EQ(embedding({"a", "b"}).request.texts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(embedding({1, 2, 3}).request.token_ids, (std::vector<std::vector<Token>>{{1, 2, 3}}));
  EXPECT_EQ(embedding({{1}, {2, 3}}).request.token_ids, (std::vector<std::vector<Token>>{{1}, {2, 3}}));
  EXPECT_EQ(embedding(std::vector<int>(5000, 1)).request.token_ids[0].size(), 5000u);  // one long input
  EXPECT_EQ(embedding(std::vector<std::string>(2048, "x")).request.texts.size(), 2048u);
  const ParsedEmbedding full = parse_embedding(
      {{"model", "m"}, {"input", "a"}, {"encoding_format", "base64"}, {"dimensions", 64}, {"user", "u"}});
  EXPECT_TRUE(full.base64);
  EXPECT_EQ(full.request.dimensions, 64);
  EXPECT_FALSE(parse_embedding({{"model", "m"}, {"input", "a"}, {"encoding_format", "float"}}).base64);
  auto refused = [](const json& body, const std::string& code, const std::string& param) {
    try {
      parse_embedding(body);
      ADD_FAILURE() << "accepted: " << body.dump();
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), code) << body.dump();
      EXPECT_EQ(e.param(), param) << body.dump();
      EXPECT_EQ(std::string(e.what()).find("SECRET"), std::string::npos) << e.what();
    }
  };
  for (const json& bad : {json(""), json::array(), json(3), json(nullptr), json({"SECRET", ""}), json({"a", 1}),
                          json({json::array()}), json({{1}, json("SECRET")}), json({1, -1}), json({1, 2.5}),
                          json({1, 4294967296LL}), json(std::vector<std::string>(2049, "x"))}) {
    refused({{"model", "m"}, {"input", bad}}, "invalid_request_error", "input");
  }
  refused({{"input", "a"}}, "invalid_request_error", "model");
  refused({{"model", "m"}, {"input", "a"}, {"encoding_format", "SECRET"}}, "invalid_request_error", "encoding_format");
  refused({{"model", "m"}, {"input", "a"}, {"dimensions", 0}}, "invalid_request_error", "dimensions");
  refused({{"model", "m"}, {"input", "a"}, {"dimensions", "SECRET"}}, "invalid_request_error", "dimensions");
  refused({{"model", "m"}, {"input", "a"}, {"SECRET", 1}}, "unsupported_field", "");
  refused({{"model", "m"}, {"input", "a"}, {"user", 5}}, "invalid_request_error", "user");
}

TEST(OpenAIResponse, EmbeddingsAsFloatsAndAsBase64) {
  const std::vector<std::vector<float>> v = {{1.0f, -0.5f}, {0.25f, 0.0f}};
  const json f = embeddings_response("m", v, false, 7);
  EXPECT_EQ(f["object"], "list");
  EXPECT_EQ(f["model"], "m");
  ASSERT_EQ(f["data"].size(), 2u);
  EXPECT_EQ(f["data"][1]["index"], 1);
  EXPECT_EQ(f["data"][1]["object"], "embedding");
  EXPECT_EQ(f["data"][0]["embedding"], json({1.0, -0.5}));
  EXPECT_EQ(f["usage"], json({{"prompt_tokens", 7}, {"total_tokens", 7}}));
  const json b = embeddings_response("m", v, true, 7);
  // 1.0f = 00 00 80 3f, -0.5f = 00 00 00 bf (little-endian float32).
  EXPECT_EQ(b["data"][0]["embedding"], "AACAPwAAAL8=");
}

TEST(AnthropicRequest, MessagesSystemAndSamplingFollowTheMessagesApi) {
  const json body = {{"model", "m"},
                     {"max_tokens", 32},
                     {"system", {{{"type", "text"}, {"text", "Be brief."}}, {{"type", "text"}, {"text", "Be kind."}}}},
                     {"messages",
                      {{{"role", "user"}, {"content", "Hi"}},
                       {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "Hello"}}}}},
                       {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "a"}, {"cache_control", {{"type", "ephemeral"}}}},
                                                       {{"type", "text"}, {"text", "b"}}}}}}},
                     {"stop_sequences", {"END"}},
                     {"temperature", 0.5},
                     {"top_k", 3},
                     {"stream", true},
                     {"metadata", {{"user_id", "u-1"}}}};
  const ParsedMessages p = parse_anthropic_messages(body);
  EXPECT_EQ(p.request.model, "m");
  EXPECT_EQ(p.request.max_tokens, 32);
  EXPECT_TRUE(p.stream);
  EXPECT_EQ(p.request.stop, (std::vector<std::string>{"END"}));
  EXPECT_FLOAT_EQ(p.request.sampling.temperature, 0.5f);
  EXPECT_EQ(p.request.sampling.top_k, 3);
  EXPECT_FLOAT_EQ(p.request.sampling.top_p, 1.0f);
  ASSERT_EQ(p.request.messages->size(), 4u);
  EXPECT_EQ((*p.request.messages)[0].role, chat::Role::kSystem);
  EXPECT_EQ((*p.request.messages)[0].content, "Be brief.\nBe kind.");
  EXPECT_EQ((*p.request.messages)[2].role, chat::Role::kAssistant);
  EXPECT_EQ((*p.request.messages)[3].content, "a\nb");
  // Defaults: temperature 1; count_tokens needs no max_tokens.
  EXPECT_FLOAT_EQ(parse_anthropic_messages({{"model", "m"}, {"max_tokens", 1}, {"messages", {{{"role", "user"}, {"content", "x"}}}}})
                      .request.sampling.temperature,
                  1.0f);
  EXPECT_NO_THROW(parse_anthropic_messages({{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "x"}}}}}, true));
}

TEST(AnthropicRequest, RefusalsNameTheFieldAndEchoNothing) {
  const json ok = {{"model", "m"}, {"max_tokens", 8}, {"messages", {{{"role", "user"}, {"content", "SECRET"}}}}};
  auto refused = [&](const json& patch, const std::string& code, const std::string& param, bool count = false) {
    json body = ok;
    for (auto it = patch.begin(); it != patch.end(); ++it) {
      if (it->is_null()) {
        body.erase(it.key());
      } else {
        body[it.key()] = *it;
      }
    }
    try {
      parse_anthropic_messages(body, count);
      ADD_FAILURE() << "accepted: " << body.dump();
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), code) << body.dump();
      EXPECT_EQ(e.param(), param) << body.dump();
      EXPECT_EQ(std::string(e.what()).find("SECRET"), std::string::npos) << e.what();
    }
  };
  refused({{"max_tokens", nullptr}}, "invalid_request_error", "max_tokens");
  refused({{"max_tokens", 0}}, "invalid_request_error", "max_tokens");
  refused({{"temperature", 1.5}}, "invalid_request_error", "temperature");
  refused({{"top_p", 0}}, "invalid_request_error", "top_p");
  refused({{"stop_sequences", "SECRET"}}, "invalid_request_error", "stop_sequences");
  refused({{"stop_sequences", {""}}}, "invalid_request_error", "stop_sequences");
  refused({{"stop_sequences", std::vector<std::string>(17, "SECRET")}}, "invalid_request_error", "stop_sequences");
  refused({{"messages", json::array()}}, "invalid_request_error", "messages");
  refused({{"messages", {{{"role", "system"}, {"content", "SECRET"}}}}}, "invalid_request_error", "messages[0].role");
  refused({{"messages", {{{"role", "user"}}}}}, "invalid_request_error", "messages[0].content");
  refused({{"messages", {{{"role", "user"}, {"content", {{{"type", "image"}, {"source", "SECRET"}}}}}}}},
          "unsupported_field", "messages[0].content[0].type");
  refused({{"messages", {{{"role", "user"}, {"content", {{{"type", "tool_result"}, {"content", "SECRET"}}}}}}}},
          "invalid_request_error", "messages[0].content[0].tool_use_id");
  refused({{"messages", {{{"role", "user"}, {"content", {{{"type", "tool_use"}, {"id", "SECRET"}}}}}}}},
          "unsupported_field", "messages[0].content[0].type");
  refused({{"tools", {{{"type", "web_search_20250305"}, {"name", "SECRET"}}}}}, "unsupported_field", "tools[0].type");
  refused({{"tool_choice", {{"type", "SECRET"}}}}, "invalid_request_error", "tool_choice");
  refused({{"messages", {{{"role", "user"}, {"content", "x"}, {"SECRET", 1}}}}}, "unsupported_field", "messages[0]");
  refused({{"tools", {{{"name", "SECRET"}}}}}, "invalid_request_error", "tools[0].input_schema");
  refused({{"thinking", {{"type", "enabled"}}}}, "unsupported_field", "thinking");
  json no_thinking = ok;
  no_thinking["thinking"] = {{"type", "disabled"}};
  EXPECT_NO_THROW(parse_anthropic_messages(no_thinking));
  refused({{"SECRET", 1}}, "unsupported_field", "");
  refused({{"system", 5}}, "invalid_request_error", "system");
  refused({{"metadata", {{"SECRET", 1}}}}, "unsupported_field", "metadata");
  refused({{"stream", "SECRET"}}, "invalid_request_error", "stream");
  refused({{"max_tokens", 5}}, "unsupported_field", "", /*count=*/true);  // count_tokens takes no max_tokens
}

TEST(AnthropicResponse, MessageEventsAndErrors) {
  AnthropicStop stop;
  stop.reason = "stop_sequence";
  stop.sequence = "END";
  const json m = anthropic_message("msg_1", "m", "Hi", &stop, 5, 2);
  EXPECT_EQ(m["type"], "message");
  EXPECT_EQ(m["content"], json::parse(R"([{"type":"text","text":"Hi"}])"));
  EXPECT_EQ(m["stop_reason"], "stop_sequence");
  EXPECT_EQ(m["stop_sequence"], "END");
  EXPECT_EQ(m["usage"], json({{"input_tokens", 5}, {"output_tokens", 2}}));
  const json start = anthropic_message("msg_1", "m", "", nullptr, 5, 0);
  EXPECT_TRUE(start["content"].empty());
  EXPECT_TRUE(start["stop_reason"].is_null());
  EXPECT_EQ(sse_typed_event(anthropic_text_delta("x")),
            "event: content_block_delta\ndata: {\"delta\":{\"text\":\"x\",\"type\":\"text_delta\"},\"index\":0,"
            "\"type\":\"content_block_delta\"}\n\n");
  EXPECT_EQ(anthropic_message_delta(stop, 2)["delta"]["stop_sequence"], "END");
  for (const auto& [status, type] : std::vector<std::pair<int, std::string>>{
           {400, "invalid_request_error"}, {401, "authentication_error"}, {403, "permission_error"},
           {404, "not_found_error"}, {413, "request_too_large"}, {429, "rate_limit_error"},
           {500, "api_error"}, {503, "overloaded_error"}}) {
    EXPECT_EQ(anthropic_error_type(status), type) << status;
  }
  HttpResponse e = to_anthropic_error(error_response(Error(codes::kRateLimited, "too many requests")));
  EXPECT_EQ(e.status, 429);
  EXPECT_EQ(json::parse(e.body), json::parse(R"({"type":"error","error":{"type":"rate_limit_error","message":"too many requests"}})"));
  bool retry_after = false;
  for (const auto& [name, value] : e.headers) retry_after = retry_after || name == "Retry-After";
  EXPECT_TRUE(retry_after);
}

TEST(ResponsesRequest, InputFormsInstructionsAndSampling) {
  // The response object repeats temperature and top_p as given (not as the sampler's floats).
  EXPECT_EQ(parse_response_request({{"model", "m"}, {"input", "x"}, {"temperature", 0.3}}).temperature, 0.3);
  const ParsedResponseRequest a = parse_response_request(
      {{"model", "m"}, {"input", "hi"}, {"instructions", "Be brief."}, {"max_output_tokens", 20}, {"temperature", 0.2},
       {"top_p", 0.9}, {"stream", true}, {"store", false}, {"text", {{"format", {{"type", "text"}}}}},
       {"tools", json::array()}, {"tool_choice", "auto"}, {"parallel_tool_calls", true}, {"truncation", "disabled"},
       {"metadata", {{"k", "v"}}}, {"user", "u"}});
  EXPECT_TRUE(a.stream);
  EXPECT_EQ(a.request.max_tokens, 20);
  EXPECT_FLOAT_EQ(a.request.sampling.temperature, 0.2f);
  ASSERT_EQ(a.request.messages->size(), 2u);
  EXPECT_EQ((*a.request.messages)[0].role, chat::Role::kSystem);
  EXPECT_EQ((*a.request.messages)[1].content, "hi");
  const ParsedResponseRequest b = parse_response_request(
      {{"model", "m"},
       {"input",
        {{{"role", "developer"}, {"content", "sys"}},
         {{"type", "message"}, {"role", "user"}, {"content", {{{"type", "input_text"}, {"text", "a"}}, {{"type", "input_text"}, {"text", "b"}}}}},
         {{"role", "assistant"}, {"content", {{{"type", "output_text"}, {"text", "c"}, {"annotations", json::array()}}}}}}}});
  ASSERT_EQ(b.request.messages->size(), 3u);
  EXPECT_EQ((*b.request.messages)[0].role, chat::Role::kSystem);
  EXPECT_EQ((*b.request.messages)[1].content, "a\nb");
  EXPECT_EQ((*b.request.messages)[2].role, chat::Role::kAssistant);
  EXPECT_FLOAT_EQ(b.request.sampling.temperature, 1.0f);
  EXPECT_FALSE(b.request.max_tokens.has_value());
}

TEST(ResponsesRequest, ToolsCallsResultsAndTextFormat) {
  const std::string raw = R"({"model": "m", "input": [
      {"role": "user", "content": "weather?"},
      {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"},
      {"type": "function_call", "call_id": "call_2", "name": "get_time", "arguments": "{}"},
      {"type": "function_call_output", "call_id": "call_1", "output": "cold"}],
    "tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "string"}}}},
              {"type": "function", "name": "get_time"}],
    "tool_choice": {"type": "function", "name": "get_weather"}, "parallel_tool_calls": false})";
  const ParsedResponseRequest p = parse_response_request(json::parse(raw), raw);
  const chat::Messages& m = *p.request.messages;
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1].role, chat::Role::kAssistant);
  ASSERT_EQ(m[1].tool_calls->size(), 2u);  // consecutive calls: one assistant turn
  EXPECT_EQ((*m[1].tool_calls)[0]["id"], "call_1");
  EXPECT_EQ(m[2].role, chat::Role::kTool);
  EXPECT_EQ(m[2].tool_call_id, "call_1");
  EXPECT_TRUE(p.request.parse_tool_calls);
  EXPECT_TRUE(p.request.tool_call_required);
  EXPECT_EQ(p.request.tool_call_name, "get_weather");
  EXPECT_FALSE(p.request.parallel_tool_calls);
  EXPECT_EQ(p.request.tools[0]["function"]["parameters"]["properties"].begin().key(), "z");  // client order
  EXPECT_EQ(p.tools.size(), 2u);  // repeated in the response as given
  EXPECT_EQ(p.tool_choice["name"], "get_weather");

  const ParsedResponseRequest f = parse_response_request(
      {{"model", "m"}, {"input", "x"}, {"text", {{"format", {{"type", "json_schema"}, {"name", "n"}, {"schema", {{"type", "object"}}}}}}}});
  EXPECT_NE(f.request.grammar, nullptr);
  EXPECT_EQ(f.text_format["type"], "json_schema");
  EXPECT_EQ(parse_response_request({{"model", "m"}, {"input", "x"}, {"text", {{"format", {{"type", "text"}}}}}}).request.grammar,
            nullptr);
}

TEST(AnthropicRequest, ToolsToolUseAndToolResultBlocks) {
  const std::string raw = R"({"model": "m", "max_tokens": 8,
    "tools": [{"name": "get_weather", "description": "d", "input_schema": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "string"}}}}],
    "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
    "messages": [{"role": "user", "content": "weather?"},
                 {"role": "assistant", "content": [{"type": "text", "text": "Checking."},
                                                   {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"z": "1", "a": "2"}}]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "cold"}]},
                                              {"type": "text", "text": "And tomorrow?"}]}]})";
  const ParsedMessages p = parse_anthropic_messages(json::parse(raw), false, raw);
  const chat::Messages& m = *p.request.messages;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[1].content, "Checking.");
  ASSERT_TRUE(m[1].tool_calls.has_value());
  EXPECT_EQ((*m[1].tool_calls)[0]["function"]["arguments"].begin().key(), "z");  // the client's order
  EXPECT_EQ(m[2].role, chat::Role::kTool);
  EXPECT_EQ(m[2].tool_call_id, "toolu_1");
  EXPECT_EQ(m[2].content, "cold");
  EXPECT_EQ(m[3].role, chat::Role::kUser);
  EXPECT_EQ(m[3].content, "And tomorrow?");
  EXPECT_TRUE(p.request.tool_call_required);  // "any"
  EXPECT_FALSE(p.request.parallel_tool_calls);
  EXPECT_EQ(p.request.tools[0]["function"]["parameters"]["properties"].begin().key(), "z");
  // A named tool; "none" leaves the tools out; count_tokens takes the tools too.
  json named = json::parse(raw);
  named["tool_choice"] = {{"type", "tool"}, {"name", "get_weather"}};
  EXPECT_EQ(parse_anthropic_messages(named).request.tool_call_name, "get_weather");
  named["tool_choice"] = {{"type", "none"}};
  EXPECT_FALSE(parse_anthropic_messages(named).request.parse_tool_calls);
  json counting = json::parse(raw);
  counting.erase("max_tokens");
  EXPECT_FALSE(parse_anthropic_messages(counting, true).request.tools.is_null());
}

TEST(ResponsesRequest, RefusalsNameTheFieldAndEchoNothing) {
  const json ok = {{"model", "m"}, {"input", "SECRET"}};
  auto refused = [&](const json& patch, const std::string& code, const std::string& param) {
    json body = ok;
    for (auto it = patch.begin(); it != patch.end(); ++it) body[it.key()] = *it;
    try {
      parse_response_request(body);
      ADD_FAILURE() << "accepted: " << body.dump();
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), code) << body.dump();
      EXPECT_EQ(e.param(), param) << body.dump();
      EXPECT_EQ(std::string(e.what()).find("SECRET"), std::string::npos) << e.what();
    }
  };
  refused({{"previous_response_id", "resp_SECRET"}}, "unsupported_field", "previous_response_id");
  refused({{"store", true}}, "unsupported_field", "store");
  refused({{"text", {{"format", {{"type", "json_schema"}, {"schema", "SECRET"}}}}}}, "invalid_request_error", "text.format");
  refused({{"text", {{"format", {{"type", "json_schema"}, {"schema", {{"type", "array"}, {"uniqueItems", true}}}}}}}},
          "unsupported_field", "text.format");
  refused({{"tools", {{{"type", "web_search"}, {"name", "SECRET"}}}}}, "unsupported_field", "tools[0].type");
  refused({{"tools", {{{"type", "function"}, {"name", "SECRET-!"}}}}}, "invalid_request_error", "tools[0].function.name");
  refused({{"tool_choice", "required"}}, "invalid_request_error", "tool_choice");
  refused({{"reasoning", {{"effort", "high"}}}}, "unsupported_field", "reasoning");
  refused({{"truncation", "auto"}}, "unsupported_field", "truncation");
  refused({{"max_output_tokens", 0}}, "invalid_request_error", "max_output_tokens");
  refused({{"temperature", 3}}, "invalid_request_error", "temperature");
  refused({{"input", json::array()}}, "invalid_request_error", "input");
  refused({{"input", 7}}, "invalid_request_error", "input");
  refused({{"input", {{{"role", "wizard"}, {"content", "SECRET"}}}}}, "invalid_request_error", "input[0].role");
  refused({{"input", {{{"type", "function_call_output"}, {"output", "SECRET"}}}}}, "invalid_request_error",
          "input[0].call_id");
  refused({{"input", {{{"type", "reasoning"}, {"summary", "SECRET"}}}}}, "unsupported_field", "input[0].type");
  refused({{"input", {{{"role", "user"}, {"content", {{{"type", "input_image"}, {"image_url", "SECRET"}}}}}}}},
          "unsupported_field", "input[0].content[0].type");
  refused({{"input", {{{"role", "user"}}}}}, "invalid_request_error", "input[0].content");
  refused({{"instructions", 5}}, "invalid_request_error", "instructions");
  refused({{"metadata", {{"k", 1}}}}, "invalid_request_error", "metadata");
  refused({{"SECRET", 1}}, "unsupported_field", "");
}

TEST(ResponsesResponse, ObjectMessageAndEvents) {
  ResponseHead h;
  h.id = "resp_1";
  h.item_id = "msg_1";
  h.created_at = 7;
  h.model = "m";
  h.max_output_tokens = 5;
  const std::string text = "Hi";
  const ResponseUsage u{3, 5, 1};
  const json done = response_object(h, "completed", &text, &u);
  EXPECT_EQ(done["object"], "response");
  EXPECT_EQ(done["status"], "completed");
  EXPECT_TRUE(done["incomplete_details"].is_null());
  EXPECT_EQ(done["output"][0]["content"][0], json({{"type", "output_text"}, {"text", "Hi"}, {"annotations", json::array()}}));
  EXPECT_EQ(done["usage"]["total_tokens"], 8);
  EXPECT_EQ(done["usage"]["input_tokens_details"]["cached_tokens"], 1);
  EXPECT_EQ(done["max_output_tokens"], 5);
  const json cut = response_object(h, "incomplete", &text, &u);
  EXPECT_EQ(cut["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(cut["output"][0]["status"], "incomplete");
  const json started = response_object(h, "in_progress", nullptr, nullptr);
  EXPECT_TRUE(started["output"].empty());
  EXPECT_TRUE(started["usage"].is_null());
  const json e = response_event("response.output_text.delta", 4, {{"delta", "x"}});
  EXPECT_EQ(e["type"], "response.output_text.delta");
  EXPECT_EQ(e["sequence_number"], 4);
  EXPECT_EQ(sse_typed_event(e).rfind("event: response.output_text.delta\ndata: {", 0), 0u);
}

TEST(OpenAIRequest, WrongTypesAndRangesAreInvalid) {
  expect_error(chat_body({{"temperature", "hot"}}), "invalid_request_error", "temperature");
  expect_error(chat_body({{"temperature", 2.5}}), "invalid_request_error", "temperature");
  expect_error(chat_body({{"top_p", 0}}), "invalid_request_error", "top_p");
  expect_error(chat_body({{"max_tokens", 0}}), "invalid_request_error", "max_tokens");
  expect_error(chat_body({{"max_tokens", 1.5}}), "invalid_request_error", "max_tokens");
  expect_error(chat_body({{"seed", "x"}}), "invalid_request_error", "seed");
  expect_error(chat_body({{"stop", {"a", "b", "c", "d", "e"}}}), "invalid_request_error", "stop");
  expect_error(chat_body({{"stop", 5}}), "invalid_request_error", "stop");
  expect_error(chat_body({{"stream", "yes"}}), "invalid_request_error", "stream");
  expect_error(chat_body({{"stream_options", {{"include_usage", true}}}}), "invalid_request_error",
               "stream_options");
  expect_error(chat_body({{"top_k", -1}}), "invalid_request_error", "top_k");
  expect_error(chat_body({{"model", 3}}), "invalid_request_error", "model");
  expect_error(json{{"messages", json::array()}}, "invalid_request_error", "model");
  json no_msgs = chat_body();
  no_msgs.erase("messages");
  expect_error(no_msgs, "invalid_request_error", "messages");
  json bad_role = chat_body();
  bad_role["messages"][0]["role"] = "wizard";
  expect_error(bad_role, "invalid_request_error", "messages[0].role");
  json tool_role = chat_body();
  tool_role["messages"][0]["role"] = "function";
  expect_error(tool_role, "unsupported_field", "messages[0].role");
  json image = chat_body();
  image["messages"][0]["content"] = {{{"type", "image_url"}, {"image_url", {{"url", "x"}}}}};
  expect_error(image, "unsupported_field", "messages[0].content[0].type");
}

TEST(OpenAIRequest, ErrorMessagesNeverEchoRequestText) {
  const std::string secret = "SECRET-PROMPT-7f3a";
  json b = chat_body({{"tools", {{{"type", "function"}, {"function", {{"name", secret + " !"}}}}}}});
  b["messages"][0]["content"] = secret;
  try {
    parse_chat_completion(b);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos);
    HttpResponse r = error_response(e);
    EXPECT_EQ(r.body.find(secret), std::string::npos);
  }
  json t = chat_body({{"temperature", secret}});
  try {
    parse_chat_completion(t);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos);
  }
}

TEST(OpenAIRequest, ChatTemplateKwargsAreAnObjectOnChatOnly) {
  EXPECT_TRUE(chat(chat_body()).request.chat_template_kwargs.is_null());
  EXPECT_TRUE(chat(chat_body({{"chat_template_kwargs", nullptr}})).request.chat_template_kwargs.is_null());
  const auto parsed = chat(chat_body({{"chat_template_kwargs", {{"enable_thinking", false}, {"n", {1, 2}}}}}));
  EXPECT_EQ(parsed.request.chat_template_kwargs,
            nlohmann::ordered_json::parse(R"({"enable_thinking":false,"n":[1,2]})"));
  for (const json& bad : {json("x"), json(7), json(true), json::array({1})}) {
    expect_error(chat_body({{"chat_template_kwargs", bad}}), "invalid_request_error", "chat_template_kwargs");
  }
  json text = {{"model", "m"}, {"prompt", "Once"}, {"chat_template_kwargs", json::object()}};
  EXPECT_THROW(parse_text_completion(text), ApiError) << "text completions render no template";
  // Nesting is bounded (32 levels, the object itself included): a hostile body cannot make the
  // recursive conversions after the check run out of stack.
  auto nested = [](int levels) {
    std::string s = "{\"k\":";
    for (int i = 1; i < levels; ++i) s += "[";
    s += "1";
    for (int i = 1; i < levels; ++i) s += "]";
    return json::parse(s + "}");
  };
  EXPECT_NO_THROW(chat(chat_body({{"chat_template_kwargs", nested(32)}})));
  expect_error(chat_body({{"chat_template_kwargs", nested(33)}}), "invalid_request_error", "chat_template_kwargs");
  // A hostile body as the route gets it (text, parsed once; nothing copies the value before the check).
  std::string deep = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"chat_template_kwargs":{"k":)";
  deep += std::string(200000, '[') + "1" + std::string(200000, ']') + "}}";
  try {
    parse_chat_completion(parse_json_object(deep));
    ADD_FAILURE() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.param(), "chat_template_kwargs");
  }
}

TEST(OpenAIRequest, PromptCacheKeyIsOneTo256BytesAndNeverEchoed) {
  EXPECT_FALSE(chat(chat_body()).request.cache_key.has_value());
  EXPECT_FALSE(chat(chat_body({{"prompt_cache_key", nullptr}})).request.cache_key.has_value());
  EXPECT_EQ(*chat(chat_body({{"prompt_cache_key", "k"}})).request.cache_key, "k");
  EXPECT_EQ(*chat(chat_body({{"prompt_cache_key", std::string(256, 'x')}})).request.cache_key, std::string(256, 'x'));
  json text = {{"model", "m"}, {"prompt", "Once"}, {"prompt_cache_key", "doc-7"}};
  EXPECT_EQ(*parse_text_completion(text).request.cache_key, "doc-7");
  for (const json& bad : {json(""), json(std::string(257, 'x')), json(7), json(true), json::array({"k"}),
                          json::object({{"k", 1}})}) {
    expect_error(chat_body({{"prompt_cache_key", bad}}), "invalid_request_error", "prompt_cache_key");
    text["prompt_cache_key"] = bad;
    expect_error(text, "invalid_request_error", "prompt_cache_key", false);
  }
  const std::string secret = std::string(300, 'S');
  try {
    chat(chat_body({{"prompt_cache_key", secret}}));
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(std::string(e.what()).find("SSSS"), std::string::npos);
  }
}

TEST(OpenAIRequest, CompletionPromptForms) {
  json b = {{"model", "m"}, {"prompt", "Once"}};
  EXPECT_EQ(parse_text_completion(b).request.prompt, "Once");
  EXPECT_FALSE(parse_text_completion(b).request.messages.has_value());
  b["prompt"] = {"Upon"};
  EXPECT_EQ(parse_text_completion(b).request.prompt, "Upon");
  b["prompt"] = {"a", "b"};
  expect_error(b, "unsupported_field", "prompt", false);
  b["prompt"] = 12;
  expect_error(b, "invalid_request_error", "prompt", false);
  b["prompt"] = {1, 2, 3};
  expect_error(b, "unsupported_field", "prompt", false);
  expect_error(json{{"model", "m"}}, "invalid_request_error", "prompt", false);
  expect_error(json{{"model", "m"}, {"prompt", "x"}, {"messages", json::array()}}, "unsupported_field", "messages",
               false);
}

TEST(OpenAIRequest, MalformedJson) {
  for (const char* body : {"{", "", "[1,2]", "\"str\"", "{\"a\":}"}) {
    try {
      parse_json_object(body);
      FAIL() << body;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), "invalid_json");
      EXPECT_EQ(http_status_for(e.code()), 400);
    }
  }
}

TEST(OpenAIResponse, ShapesAndSse) {
  ResponseMeta m{"chatcmpl-x", 1700000000, "m", "fp_1"};
  std::vector<ChoiceOutput> one(1);
  one[0].text = "hello";
  one[0].finish = FinishReason::Length;
  json c = chat_completion(m, one, UsageCounts{3, 2, 0});
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["choices"][0]["index"], 0);
  EXPECT_EQ(c["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(c["choices"][0]["message"]["content"], "hello");
  EXPECT_TRUE(c["choices"][0]["logprobs"].is_null());
  EXPECT_EQ(c["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(c["usage"]["total_tokens"], 5);
  EXPECT_EQ(c["system_fingerprint"], "fp_1");
  json t = text_completion(m, one, UsageCounts{3, 2, 0});
  EXPECT_EQ(t["object"], "text_completion");
  EXPECT_EQ(t["choices"][0]["text"], "hello");
  // n choices: in order, each with its index.
  std::vector<ChoiceOutput> three(3);
  for (int i = 0; i < 3; ++i) three[static_cast<size_t>(i)].text = std::to_string(i);
  json n3 = chat_completion(m, three, UsageCounts{3, 9, 0});
  ASSERT_EQ(n3["choices"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(n3["choices"][static_cast<size_t>(i)]["index"], i);
    EXPECT_EQ(n3["choices"][static_cast<size_t>(i)]["message"]["content"], std::to_string(i));
  }
  EXPECT_EQ(chat_chunk_role(m, 0, false)["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(chat_chunk_role(m, 2, false)["choices"][0]["index"], 2);
  EXPECT_FALSE(chat_chunk_role(m, 0, false).contains("usage"));
  EXPECT_TRUE(chat_chunk_delta(m, 0, "x", nullptr, true)["usage"].is_null());
  EXPECT_EQ(chat_chunk_delta(m, 1, "x", nullptr, true)["choices"][0]["index"], 1);
  EXPECT_EQ(chat_chunk_finish(m, 0, "stop", nullptr, false)["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(text_chunk(m, 3, "x", nullptr, nullptr, false)["choices"][0]["index"], 3);
  EXPECT_EQ(c["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
  json u = usage_chunk(m, true, UsageCounts{4, 6, 3});
  EXPECT_TRUE(u["choices"].empty());
  EXPECT_EQ(u["usage"]["total_tokens"], 10);
  EXPECT_EQ(u["usage"]["prompt_tokens_details"]["cached_tokens"], 3);
  EXPECT_EQ(timings_json(ShownTimings{1.5, 4}), (json{{"prompt_eval_ms", 1.5}, {"ttft_ms", 4}}));
  EXPECT_EQ(sse_event(json{{"a", 1}}), "data: {\"a\":1}\n\n");
  EXPECT_EQ(std::string(kSseDone), "data: [DONE]\n\n");
  EXPECT_EQ(new_response_id(true).rfind("chatcmpl-", 0), 0u);
  EXPECT_EQ(new_response_id(false).rfind("cmpl-", 0), 0u);
  EXPECT_NE(new_response_id(true), new_response_id(true));
  // Invalid UTF-8 never makes serialisation throw.
  EXPECT_NO_THROW(sse_event(chat_chunk_delta(m, 0, std::string("\xff\xfe"), nullptr, false)));
}

TEST(OpenAIResponse, LogprobsInTheChatAndCompletionShapes) {
  std::vector<TokenLogprobs> toks(2);
  toks[0].chosen = {5, -0.5f, "Hi"};
  toks[0].top = {{5, -0.5f, "Hi"}, {6, -1.25f, "\xC3"}, {7, -2.0f, "\xC4"}};
  toks[1].chosen = {8, -std::numeric_limits<float>::infinity(), " there"};
  const json c = chat_logprobs(toks);
  EXPECT_TRUE(c["refusal"].is_null());
  ASSERT_EQ(c["content"].size(), 2u);
  EXPECT_EQ(c["content"][0]["token"], "Hi");
  EXPECT_EQ(c["content"][0]["logprob"], -0.5);
  EXPECT_EQ(c["content"][0]["bytes"], json({72, 105}));
  ASSERT_EQ(c["content"][0]["top_logprobs"].size(), 3u);
  EXPECT_EQ(c["content"][0]["top_logprobs"][1]["logprob"], -1.25);
  EXPECT_EQ(c["content"][0]["top_logprobs"][1]["bytes"], json({0xC3}));
  EXPECT_FALSE(c["content"][0]["top_logprobs"][1].contains("top_logprobs"));
  EXPECT_EQ(c["content"][1]["logprob"], -9999.0);  // -inf as OpenAI writes it
  EXPECT_TRUE(c["content"][1]["top_logprobs"].empty());
  // The token text a client decodes: partial UTF-8 as U+FFFD, the exact bytes beside it.
  const json parsed = json::parse(json_text(c));
  EXPECT_EQ(parsed["content"][0]["top_logprobs"][1]["token"], "\xEF\xBF\xBD");

  const json t = json::parse(json_text(text_logprobs(toks, 10)));
  EXPECT_EQ(t["tokens"], json({"Hi", " there"}));
  EXPECT_EQ(t["token_logprobs"], json({-0.5, -9999.0}));
  EXPECT_EQ(t["text_offset"], json({10, 12}));
  ASSERT_EQ(t["top_logprobs"].size(), 2u);
  // Two alternatives decoded alike (U+FFFD) are one key: the more probable one stays.
  EXPECT_EQ(t["top_logprobs"][0], json({{"Hi", -0.5}, {"\xEF\xBF\xBD", -1.25}}));
  EXPECT_EQ(t["top_logprobs"][1], json::object());
  EXPECT_EQ(chat_logprobs({}), json({{"content", json::array()}, {"refusal", nullptr}}));
}

TEST(Router, TemplatesMethodsAndUnknownPaths) {
  Router r;
  auto m = r.match("GET", "/v1/models/org%2Frepo");
  EXPECT_EQ(m.kind, RouteMatch::Kind::Found);
  EXPECT_EQ(m.id, RouteId::GetModel);
  EXPECT_EQ(m.route, "/v1/models/{id}");
  EXPECT_EQ(m.param, "org/repo");
  EXPECT_EQ(r.match("GET", "/v1/models/org/repo:q4").param, "org/repo:q4");
  EXPECT_EQ(r.match("DELETE", "/v1/models/x").id, RouteId::DeleteModel);
  EXPECT_EQ(r.match("POST", "/v1/models/pull").id, RouteId::PullModel);
  EXPECT_EQ(r.match("GET", "/v1/models/pull").id, RouteId::GetModel);
  auto bad = r.match("GET", "/v1/chat/completions");
  EXPECT_EQ(bad.kind, RouteMatch::Kind::MethodNotAllowed);
  EXPECT_EQ(bad.allow, "POST");
  EXPECT_EQ(bad.route, "/v1/chat/completions");
  auto put = r.match("PUT", "/v1/models/x");
  EXPECT_EQ(put.kind, RouteMatch::Kind::MethodNotAllowed);
  EXPECT_EQ(put.route, "/v1/models/{id}");
  auto none = r.match("GET", "/secret/path/with/user/text");
  EXPECT_EQ(none.kind, RouteMatch::Kind::NotFound);
  EXPECT_EQ(none.route, "unmatched");
  EXPECT_EQ(r.match("GET", "/v1/models/").kind, RouteMatch::Kind::NotFound);
  EXPECT_EQ(r.match("GET", "/v1/models/%zz").kind, RouteMatch::Kind::NotFound);
  EXPECT_EQ(r.match("GET", "/v1/models/%00").kind, RouteMatch::Kind::NotFound);
  EXPECT_FALSE(percent_decode("%4").has_value());
}

TEST(Router, AttestationRouteAndQueryStrings) {
  Router r;
  EXPECT_EQ(r.match("GET", "/v1/attestation").id, RouteId::Attestation);
  EXPECT_EQ(r.match("POST", "/v1/attestation").kind, RouteMatch::Kind::MethodNotAllowed);

  auto q = parse_query("nonce=ab%43d&model=org%2Frepo+x&empty=&flag");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->at("nonce"), "abCd");
  EXPECT_EQ(q->at("model"), "org/repo x");
  EXPECT_EQ(q->at("empty"), "");
  EXPECT_EQ(q->at("flag"), "");
  EXPECT_EQ(parse_query("a=%2B")->at("a"), "+");
  EXPECT_TRUE(parse_query("")->empty());
  EXPECT_EQ(parse_query("&&a=1&")->size(), 1u);
  EXPECT_FALSE(parse_query("a=1&a=2").has_value());  // a name given twice is ambiguous
  EXPECT_FALSE(parse_query("a=%zz").has_value());
  EXPECT_FALSE(parse_query("a=%00").has_value());
  EXPECT_FALSE(parse_query("%4=1").has_value());
}

TEST(ApiError, StatusTypeAndRetryAfter) {
  auto body = [](const HttpResponse& r) { return json::parse(r.body)["error"]; };
  HttpResponse r = error_response(Error(codes::kRateLimited, "busy"));
  EXPECT_EQ(r.status, 429);
  EXPECT_EQ(body(r)["type"], "rate_limit_error");
  ASSERT_FALSE(r.headers.empty());
  EXPECT_EQ(r.headers[0].first, "Retry-After");
  EXPECT_EQ(error_response(Error(codes::kQueueTimeout, "x")).status, 503);
  EXPECT_EQ(body(error_response(Error(codes::kQueueTimeout, "x")))["type"], "server_error");
  EXPECT_EQ(body(error_response(Error(codes::kInvalidApiKey, "x")))["type"], "authentication_error");
  EXPECT_EQ(body(error_response(Error(codes::kModelNotFound, "x")))["type"], "not_found_error");
  EXPECT_EQ(error_response(Error(codes::kRequestTooLarge, "x")).status, 413);
  json e = body(error_response(ApiError(codes::kUnsupportedField, "no", "tools")));
  EXPECT_EQ(e["param"], "tools");
  EXPECT_EQ(e["code"], "unsupported_field");
  EXPECT_EQ(e["message"], "no");
  EXPECT_TRUE(body(error_response(Error(codes::kInvalidJson, "x")))["param"].is_null());
  // Internal errors' details are not exposed; a code string from elsewhere that names no code maps to 500.
  EXPECT_EQ(http_status_for(std::string("weird_thing")), 500);
  HttpResponse internal = error_response(Error(codes::kInternal, "detail /home/user/file"));
  EXPECT_EQ(internal.status, 500);
  EXPECT_EQ(body(internal)["message"], "internal server error");
}

TEST(Metrics, KvCacheGaugesInVllmsNamesAndHiddenBlockCountsUnderSuppressedSizes) {
  Metrics m;
  GaugeSnapshot g;
  g.active_requests = 3;
  g.queued_requests = 2;
  g.slots = 4;
  KvCacheStats kv;
  kv.blocks_total = 8;
  kv.blocks_in_use = 3;
  kv.blocks_reserved = 3;
  kv.waiting = 1;
  kv.blocks_wiped = 17;
  g.kv_caches.emplace_back("tiny", kv);
  std::string t = m.render(g);
  EXPECT_NE(t.find("vllm:num_requests_running 2\n"), std::string::npos) << t;
  EXPECT_NE(t.find("vllm:num_requests_waiting 3\n"), std::string::npos) << "slot queue + KV wait";
  EXPECT_NE(t.find("vllm:kv_cache_usage_perc{model_name=\"tiny\"} 0.75\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_kv_cache_blocks{model=\"tiny\",state=\"in_use\"} 3\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_kv_cache_blocks_total{model=\"tiny\"} 8\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_kv_cache_blocks_wiped_total{model=\"tiny\"} 17\n"), std::string::npos);

  g.exact_sizes = false;
  t = m.render(g);
  EXPECT_EQ(t.find("vllm:kv_cache_usage_perc"), std::string::npos);
  EXPECT_EQ(t.find("state=\"in_use\""), std::string::npos);
  EXPECT_NE(t.find("a3s_power_kv_cache_blocks_total{model=\"tiny\"} 8\n"), std::string::npos);
}

TEST(Metrics, PrometheusTextFormat) {
  Metrics m;
  m.record_request("GET", "/v1/models/{id}", 200, 0.003);
  m.record_request("GET", "/v1/models/{id}", 200, 0.2);
  m.record_request("GET", "unmatched", 404, 0.001);
  m.record_ttft("/v1/chat/completions", 0.02);
  m.record_tokens(10, 5);
  GaugeSnapshot g;
  g.active_requests = 2;
  g.queued_requests = 1;
  g.models_loaded = 1;
  g.slots = 4;
  std::string t = m.render(g);
  EXPECT_NE(t.find("# TYPE a3s_power_http_requests_total counter\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"/v1/models/{id}\",status=\"200\"} 2\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_requests_total{route=\"unmatched\",status=\"404\"} 1\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_request_duration_seconds_bucket{route=\"/v1/models/{id}\",le=\"0.005\"} 1\n"),
            std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_request_duration_seconds_bucket{route=\"/v1/models/{id}\",le=\"+Inf\"} 2\n"),
            std::string::npos);
  EXPECT_NE(t.find("a3s_power_http_request_duration_seconds_count{route=\"/v1/models/{id}\"} 2\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_time_to_first_token_seconds_count{route=\"/v1/chat/completions\"} 1\n"),
            std::string::npos);
  EXPECT_NE(t.find("a3s_power_prompt_tokens_total 10\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_completion_tokens_total 5\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_active_requests 2\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_queued_requests 1\n"), std::string::npos);
  EXPECT_NE(t.find("a3s_power_models_loaded 1\n"), std::string::npos);
  EXPECT_EQ(PrometheusWriter::escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  // Every non-comment line is "name{labels} value" or "name value".
  size_t pos = 0;
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    ASSERT_NE(nl, std::string::npos);
    std::string line = t.substr(pos, nl - pos);
    if (line[0] != '#') {
      EXPECT_NE(line.rfind(' '), std::string::npos) << line;
    }
    pos = nl + 1;
  }
}

config::ApiKey key_for(const std::string& id, const std::string& raw) {
  config::ApiKey k;
  k.identity = id;
  unsigned int len = 0;
  EVP_Digest(raw.data(), raw.size(), k.sha256.data(), &len, EVP_sha256(), nullptr);
  return k;
}

TEST(Authenticator, BearerKeysByHash) {
  Authenticator none({});
  EXPECT_FALSE(none.enabled());
  Authenticator a({key_for("alice", "sk-alice"), key_for("bob", "sk-bob")});
  EXPECT_TRUE(a.enabled());
  ASSERT_TRUE(a.authenticate("Bearer sk-alice").has_value());
  EXPECT_EQ(a.authenticate("Bearer sk-alice")->identity, "alice");
  EXPECT_FALSE(a.authenticate("Bearer sk-alice")->admin);
  ASSERT_TRUE(a.authenticate("bearer  sk-bob").has_value());
  EXPECT_EQ(a.authenticate("bearer  sk-bob")->identity, "bob");
  EXPECT_FALSE(a.authenticate("Bearer sk-carol").has_value());
  EXPECT_FALSE(a.authenticate("Basic sk-alice").has_value());
  EXPECT_FALSE(a.authenticate("Bearer").has_value());
  EXPECT_FALSE(a.authenticate("Bearer ").has_value());
  EXPECT_FALSE(a.authenticate("").has_value());
  EXPECT_FALSE(a.authenticate("Bearersk-alice").has_value());
}

TEST(Authenticator, AdminKeysAreApiKeysWithTheAdminScope) {
  Authenticator only_admin({}, {key_for("admin1", "sk-root")});
  EXPECT_TRUE(only_admin.enabled()) << "an admin key alone turns authentication on";
  EXPECT_TRUE(only_admin.admin_enabled());
  Authenticator a({key_for("alice", "sk-alice")}, {key_for("admin1", "sk-root")});
  ASSERT_TRUE(a.authenticate("Bearer sk-root").has_value());
  EXPECT_TRUE(a.authenticate("Bearer sk-root")->admin);
  EXPECT_EQ(a.authenticate("Bearer sk-root")->identity, "admin1");
  ASSERT_TRUE(a.authenticate("Bearer sk-alice").has_value());
  EXPECT_FALSE(a.authenticate("Bearer sk-alice")->admin);
  EXPECT_FALSE(Authenticator({key_for("alice", "sk-alice")}).admin_enabled());
}

}  // namespace
}  // namespace a3s::power::server
