#include "base/json_depth.h"
#include "openai/openai_request.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "chat/messages.h"
#include "openai/api_error.h"
#include "openai/request_fields.h"
#include "openai/structured_output.h"
#include "privacy/wipe_text.h"

namespace a3s::power::openai {
namespace {

using nlohmann::json;

// Entries of one logit_bias object.
constexpr size_t kMaxLogitBias = 1024;

// Inputs of one embeddings request (OpenAI's limit).
constexpr size_t kMaxEmbeddingInputs = 2048;

// Choices per request (`n`): each is a generation of its own, on its own slot.
constexpr int64_t kMaxChoices = 8;

// Arrays and objects in chat_template_kwargs, the object itself counted: the template sees them as
// values built recursively.
constexpr int kMaxKwargsDepth = 32;

// OpenAI features that are refused explicitly (with a reason) rather than as unknown fields.
const std::map<std::string, std::string>& known_unsupported() {
  static const std::map<std::string, std::string> m = {
      {"functions", "function calling is not available"},
      {"function_call", "function calling is not available"},
      {"audio", "audio output is not available"},
      {"modalities", "only text output is available"},
      {"prediction", "predicted outputs are not available"},
      {"store", "stored completions are not available"},
      {"metadata", "stored completions are not available"},
      {"service_tier", "service tiers are not available"},
      {"web_search_options", "web search is not available"},
      {"echo", "echo is only available on /v1/completions"},
      {"best_of", "best_of is not available"},
  };
  return m;
}

// Every field either completion endpoint accepts (names defined by the API).
const std::set<std::string>& endpoint_fields() {
  static const std::set<std::string> names = {
      "model",          "messages", "prompt", "max_tokens",       "max_completion_tokens", "temperature",
      "top_p",          "seed",     "stop",   "presence_penalty", "frequency_penalty",     "n",
      "user",           "stream",   "stream_options", "top_k",    "min_p",                 "repeat_penalty",
      "prompt_cache_key", "logit_bias", "logprobs", "top_logprobs", "reasoning_effort", "chat_template_kwargs",
      "suffix", "echo", "tools", "tool_choice", "parallel_tool_calls", "response_format", "grammar"};
  return names;
}

void check_fields(const json& body, const std::set<std::string>& accepted) {
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& k = it.key();
    if (accepted.count(k)) continue;
    auto ku = known_unsupported().find(k);
    if (ku != known_unsupported().end()) {
      // A feature explicitly turned off is not a request for it.
      if (it->is_null()) continue;
      if ((k == "store" || k == "echo") &&
          it->is_boolean() && !it->get<bool>()) {
        continue;
      }
      unsupported_field(k, ku->second);
    }
    // A field of the other completion endpoint is named; any other name is request content (it may
    // be anything a client sent) and is never echoed.
    if (endpoint_fields().count(k)) {
      throw ApiError(codes::kUnsupportedField, "'" + k + "' is not accepted by this endpoint", k);
    }
    throw ApiError(codes::kUnsupportedField, "the request has an unknown field");
  }
}

// A token id written as the API writes it: decimal digits, no sign, no leading zero, at most
// INT32_MAX. Nothing else is a key (so no two keys name one token).
std::optional<Token> token_id_of(const std::string& key) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) return std::nullopt;
  int64_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > std::numeric_limits<int32_t>::max()) return std::nullopt;
  return static_cast<Token>(v);
}

// logit_bias: an object of token ids (decimal strings) to biases in [-100, 100], sorted by id
// (SamplingParams::logit_bias). Whether the ids exist is the model's question (run_completion).
// Errors never repeat a key or a value.
std::vector<LogitBias> logit_bias_of(const json& lb) {
  if (!lb.is_object()) bad_field("logit_bias", "'logit_bias' must be an object of token ids to numbers");
  if (lb.size() > kMaxLogitBias) {
    bad_field("logit_bias", "'logit_bias' holds at most " + std::to_string(kMaxLogitBias) + " tokens");
  }
  std::vector<LogitBias> out;
  out.reserve(lb.size());
  for (auto it = lb.begin(); it != lb.end(); ++it) {
    const auto id = token_id_of(it.key());
    if (!id) bad_field("logit_bias", "'logit_bias' keys must be token ids written as decimal integers");
    const json& v = it.value();
    if (!v.is_number()) bad_field("logit_bias", "'logit_bias' values must be numbers from -100 to 100");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < -100 || d > 100) {
      bad_field("logit_bias", "'logit_bias' values must be numbers from -100 to 100");
    }
    out.push_back({*id, static_cast<float>(d)});
  }
  std::sort(out.begin(), out.end(), [](const LogitBias& a, const LogitBias& b) { return a.id < b.id; });
  return out;
}

// Fields common to both endpoints; fills sampling, limits, stop, stream flags.
void parse_common(const json& body, ParsedCompletion& out, bool chat) {
  if (!is_given(body, "model")) bad_field("model", "'model' is required");
  if (!body["model"].is_string() || body["model"].get_ref<const std::string&>().empty()) {
    bad_field("model", "'model' must be a non-empty string");
  }
  out.request.model = body["model"].get<std::string>();

  SamplingParams& s = out.request.sampling;
  s = api_sampling_defaults();  // OpenAI's
  if (is_given(body, "temperature")) s.temperature = static_cast<float>(number_in(body, "temperature", 0, 2));
  if (is_given(body, "top_p")) s.top_p = static_cast<float>(number_in(body, "top_p", 0, 1, /*lo_open=*/true));
  if (is_given(body, "presence_penalty")) {
    s.presence_penalty = static_cast<float>(number_in(body, "presence_penalty", -2, 2));
  }
  if (is_given(body, "frequency_penalty")) {
    s.frequency_penalty = static_cast<float>(number_in(body, "frequency_penalty", -2, 2));
  }
  if (is_given(body, "top_k")) {
    int64_t k = integer_of(body, "top_k");
    if (k < 0 || k > std::numeric_limits<int>::max()) bad_field("top_k", "'top_k' must be >= 0");
    s.top_k = static_cast<int>(k);
  }
  if (is_given(body, "min_p")) s.min_p = static_cast<float>(number_in(body, "min_p", 0, 1));
  if (is_given(body, "repeat_penalty")) {
    s.repeat_penalty = static_cast<float>(number_in(body, "repeat_penalty", 0, 100, /*lo_open=*/true));
  }
  if (is_given(body, "seed")) s.seed = static_cast<uint64_t>(integer_of(body, "seed"));
  if (is_given(body, "logit_bias")) s.logit_bias = logit_bias_of(body["logit_bias"]);

  auto take_max = [&](const char* key) {
    int64_t m = integer_of(body, key);
    if (m < 1) bad_field(key, std::string("'") + key + "' must be at least 1");
    out.request.max_tokens = static_cast<int>(std::min<int64_t>(m, std::numeric_limits<int>::max()));
  };
  if (chat && is_given(body, "max_completion_tokens")) take_max("max_completion_tokens");
  if (is_given(body, "max_tokens")) take_max("max_tokens");

  if (is_given(body, "n")) {
    int64_t n = integer_of(body, "n");
    if (n < 1 || n > kMaxChoices) bad_field("n", "'n' must be from 1 to " + std::to_string(kMaxChoices));
    out.n = static_cast<int>(n);
  }
  if (is_given(body, "user") && !body["user"].is_string()) bad_field("user", "'user' must be a string");

  // docs/prompt-cache.md: 1..256 bytes; the key itself is never echoed in an error.
  if (is_given(body, "prompt_cache_key")) {
    const json& k = body["prompt_cache_key"];
    if (!k.is_string()) bad_field("prompt_cache_key", "'prompt_cache_key' must be a string");
    const size_t n = k.get_ref<const std::string&>().size();
    if (n < 1 || n > 256) bad_field("prompt_cache_key", "'prompt_cache_key' must be 1 to 256 bytes long");
    out.request.cache_key = k.get<std::string>();
  }

  if (is_given(body, "stop")) {
    const json& st = body["stop"];
    auto add = [&](const json& v) {
      if (!v.is_string()) bad_field("stop", "'stop' must be a string or an array of strings");
      if (v.get_ref<const std::string&>().empty()) bad_field("stop", "'stop' strings must not be empty");
      out.request.stop.push_back(v.get<std::string>());
    };
    if (st.is_array()) {
      if (st.size() > 4) bad_field("stop", "'stop' holds at most 4 strings");
      for (auto& v : st) add(v);
    } else {
      add(st);
    }
  }

  if (is_given(body, "stream")) out.stream = bool_of(body, "stream");
  if (is_given(body, "stream_options")) {
    const json& so = body["stream_options"];
    if (!so.is_object()) bad_field("stream_options", "'stream_options' must be an object");
    if (!out.stream) bad_field("stream_options", "'stream_options' is only allowed when 'stream' is true");
    for (auto it = so.begin(); it != so.end(); ++it) {
      if (it.key() == "include_usage") {
        if (it->is_null()) continue;
        if (!it->is_boolean()) bad_field("stream_options.include_usage", "'include_usage' must be a boolean");
        out.include_usage = it->get<bool>();
      } else {
        throw ApiError(codes::kUnsupportedField, "'stream_options' has an unknown field", "stream_options");
      }
    }
  }
}

// The messages under the API's policy (chat/messages.h): the same fields, errors and params as
// every other field of the body.
chat::Messages messages_of(const json& body) {
  if (!is_given(body, "messages")) bad_field("messages", "'messages' is required");
  try {
    return chat::parse_messages(body["messages"], chat::MessagePolicy::kApi);
  } catch (const chat::FieldError& e) {
    throw ApiError(e.kind(), e.what(), e.param());
  }
}

}  // namespace

nlohmann::json parse_json_object(const std::string& body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ApiError(codes::kInvalidJson, "the request body is not valid JSON");
  if (!j.is_object()) throw ApiError(codes::kInvalidJson, "the request body must be a JSON object");
  return j;
}

ParsedCompletion parse_chat_completion(const nlohmann::json& body, const std::string& raw_body) {
  static const std::set<std::string> accepted = {"tools", "tool_choice", "parallel_tool_calls", "response_format",
                                                 "grammar",
      "model", "messages",      "max_tokens", "max_completion_tokens", "temperature",
      "top_p", "seed",          "stop",       "presence_penalty",      "frequency_penalty",
      "n",     "user",          "stream",     "stream_options",        "top_k",
      "min_p", "repeat_penalty", "prompt_cache_key", "chat_template_kwargs", "logit_bias",
      "logprobs", "top_logprobs", "reasoning_effort"};
  check_fields(body, accepted);
  ParsedCompletion out;
  parse_common(body, out, /*chat=*/true);
  // reasoning_effort: a word the model's template reads (gpt-oss: low, medium, high).
  if (is_given(body, "reasoning_effort")) {
    const json& e = body["reasoning_effort"];
    static const std::set<std::string> efforts = {"minimal", "low", "medium", "high"};
    if (!e.is_string() || !efforts.count(e.get<std::string>())) {
      bad_field("reasoning_effort", "'reasoning_effort' must be minimal, low, medium or high");
    }
    out.request.reasoning_effort = e.get<std::string>();
  }
  out.request.messages = messages_of(body);
  // logprobs: true asks for each token's log probability; top_logprobs adds that many alternatives.
  const bool logprobs = is_given(body, "logprobs") && bool_of(body, "logprobs");
  if (is_given(body, "top_logprobs")) {
    const int64_t k = integer_of(body, "top_logprobs");
    if (k < 0 || k > runtime::kMaxTopLogprobs) {
      bad_field("top_logprobs", "'top_logprobs' must be from 0 to " + std::to_string(runtime::kMaxTopLogprobs));
    }
    if (!logprobs) bad_field("top_logprobs", "'top_logprobs' needs 'logprobs' set to true");
    out.request.logprobs = static_cast<int>(k);
  } else if (logprobs) {
    out.request.logprobs = 0;
  }
  if (is_given(body, "chat_template_kwargs")) {
    const json& kwargs = body["chat_template_kwargs"];
    if (!kwargs.is_object()) bad_field("chat_template_kwargs", "'chat_template_kwargs' must be an object");
    if (nests_deeper_than(kwargs, kMaxKwargsDepth)) {
      bad_field("chat_template_kwargs", "'chat_template_kwargs' nests deeper than " + std::to_string(kMaxKwargsDepth) +
                                      " levels");
    }
    out.request.chat_template_kwargs = nlohmann::ordered_json(kwargs);
  }
  static constexpr const char* kOrdered[] = {"tools", "tool_choice", "parallel_tool_calls", "response_format",
                                             "grammar"};
  if (std::any_of(std::begin(kOrdered), std::end(kOrdered), [&](const char* k) { return is_given(body, k); })) {
    // Tools and schemas keep the client's key order: templates print them, and a schema's property
    // order is the order the members are generated in.
    nlohmann::ordered_json fields =
        ordered_fields(body, raw_body, {"tools", "tool_choice", "parallel_tool_calls", "response_format", "grammar"});
    struct WipeFields {
      nlohmann::ordered_json& f;
      ~WipeFields() { privacy::wipe_json(f); }
    } wipe_fields{fields};
    out.tools = parse_tool_request(fields);
    apply_tool_request(out.tools, out.request);
    out.request.grammar = output_grammar(fields);
    if (out.request.grammar && out.tools.active()) {
      bad_field(is_given(body, "grammar") ? "grammar" : "response_format",
                "a structured reply ('response_format', 'grammar') cannot be combined with 'tools' unless "
                "'tool_choice' is \"none\"");
    }
  }
  return out;
}

ParsedCompletion parse_text_completion(const nlohmann::json& body) {
  static const std::set<std::string> accepted = {"model",
                                                 "prompt",
                                                 "max_tokens",
                                                 "temperature",
                                                 "top_p",
                                                 "seed",
                                                 "stop",
                                                 "presence_penalty",
                                                 "frequency_penalty",
                                                 "n",
                                                 "user",
                                                 "stream",
                                                 "stream_options",
                                                 "top_k",
                                                 "min_p",
                                                 "repeat_penalty",
                                                 "prompt_cache_key",
                                                 "logit_bias",
                                                 "echo",
                                                 "logprobs",
                                                 "suffix",
                                                 "grammar"};
  check_fields(body, accepted);
  ParsedCompletion out;
  parse_common(body, out, /*chat=*/false);
  if (is_given(body, "grammar")) {
    nlohmann::ordered_json fields = {{"grammar", body["grammar"]}};
    out.request.grammar = output_grammar(fields);
    privacy::wipe_json(fields);
  }
  if (is_given(body, "echo")) out.echo = bool_of(body, "echo");
  // logprobs: the number of alternatives per token (each token's own log probability always comes).
  if (is_given(body, "logprobs")) {
    const json& v = body["logprobs"];
    if (v.is_boolean() || !v.is_number()) bad_field("logprobs", "'logprobs' must be an integer");
    const int64_t k = integer_of(body, "logprobs");
    if (k < 0 || k > runtime::kMaxTopLogprobs) {
      bad_field("logprobs", "'logprobs' must be from 0 to " + std::to_string(runtime::kMaxTopLogprobs));
    }
    if (out.echo) unsupported_field("logprobs", "log probabilities of an echoed prompt are not available");
    out.request.logprobs = static_cast<int>(k);
  }
  // suffix: fill in the middle between the prompt and it (whether the model can is its question).
  if (is_given(body, "suffix")) {
    if (!body["suffix"].is_string()) bad_field("suffix", "'suffix' must be a string");
    out.request.suffix = body["suffix"].get<std::string>();
  }
  if (!is_given(body, "prompt")) bad_field("prompt", "'prompt' is required");
  const json& p = body["prompt"];
  if (p.is_string()) {
    out.request.prompt = p.get<std::string>();
  } else if (p.is_array() && p.size() == 1 && p[0].is_string()) {
    out.request.prompt = p[0].get<std::string>();
  } else if (p.is_array() && p.size() > 1 && p[0].is_string()) {
    unsupported_field("prompt", "only one prompt per request is available");
  } else if (p.is_array() && !p.empty() && p[0].is_number_integer()) {
    unsupported_field("prompt", "a prompt of token ids is not available; send text");
  } else {
    bad_field("prompt", "'prompt' must be a string or an array of one string");
  }
  return out;
}

namespace {

// One token-id input: an array of non-negative integers (whether they exist is the model's question).
std::vector<Token> token_ids_of(const json& a) {
  std::vector<Token> ids;
  ids.reserve(a.size());
  for (const json& v : a) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      bad_field("input", "'input' token ids must be non-negative integers");
    }
    ids.push_back(static_cast<Token>(v.get<int64_t>()));
  }
  return ids;
}

}  // namespace

ParsedEmbedding parse_embedding(const nlohmann::json& body) {
  for (auto it = body.begin(); it != body.end(); ++it) {
    const std::string& k = it.key();
    if (k == "model" || k == "input" || k == "encoding_format" || k == "dimensions" || k == "user") continue;
    // Any other name is request content (it may be anything a client sent) and is never echoed.
    throw ApiError(codes::kUnsupportedField, "the request has an unknown field");
  }
  ParsedEmbedding out;
  if (!is_given(body, "model")) bad_field("model", "'model' is required");
  if (!body["model"].is_string() || body["model"].get_ref<const std::string&>().empty()) {
    bad_field("model", "'model' must be a non-empty string");
  }
  out.request.model = body["model"].get<std::string>();
  if (is_given(body, "user") && !body["user"].is_string()) bad_field("user", "'user' must be a string");
  if (is_given(body, "encoding_format")) {
    const json& f = body["encoding_format"];
    if (!f.is_string() || (f != "float" && f != "base64")) {
      bad_field("encoding_format", "'encoding_format' must be \"float\" or \"base64\"");
    }
    out.base64 = f == "base64";
  }
  if (is_given(body, "dimensions")) {
    const int64_t d = integer_of(body, "dimensions");
    if (d < 1 || d > std::numeric_limits<int>::max()) bad_field("dimensions", "'dimensions' must be a positive integer");
    out.request.dimensions = static_cast<int>(d);
  }
  if (!is_given(body, "input")) bad_field("input", "'input' is required");
  const json& in = body["input"];
  auto text = [&](const json& v) {
    if (v.get_ref<const std::string&>().empty()) bad_field("input", "'input' strings must not be empty");
    out.request.texts.push_back(v.get<std::string>());
  };
  if (in.is_string()) {
    text(in);
  } else if (in.is_array() && !in.empty()) {
    const bool several = in[0].is_string() || in[0].is_array();  // else one input of token ids
    if (several && in.size() > kMaxEmbeddingInputs) {
      bad_field("input", "'input' holds at most " + std::to_string(kMaxEmbeddingInputs) + " inputs");
    }
    if (in[0].is_string()) {
      for (const json& v : in) {
        if (!v.is_string()) bad_field("input", "'input' must not mix strings with other values");
        text(v);
      }
    } else if (in[0].is_array()) {
      for (const json& v : in) {
        if (!v.is_array()) bad_field("input", "'input' must not mix token arrays with other values");
        if (v.empty()) bad_field("input", "'input' token arrays must not be empty");
        out.request.token_ids.push_back(token_ids_of(v));
      }
    } else {
      out.request.token_ids.push_back(token_ids_of(in));
    }
  } else {
    bad_field("input", "'input' must be a non-empty string, array of strings, or array of token ids");
  }
  return out;
}

}  // namespace a3s::power::openai
