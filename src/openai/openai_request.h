// Parsing and validation of OpenAI request bodies (POST /v1/chat/completions, /v1/completions).
//
// Field reference: OpenAI API reference, "Create chat completion" and "Create completion".
// Accepted (allow-list): model, messages | prompt, max_tokens, max_completion_tokens (chat),
// temperature [0,2], top_p (0,1], seed (integer), stop (string or up to 4 strings),
// presence_penalty / frequency_penalty [-2,2], n (1..8 choices), user, stream, stream_options
// {include_usage}, prompt_cache_key (a string of 1..256 bytes: docs/prompt-cache.md; the route fills
// in the caller's identity and endpoint), and the extensions top_k (>= 0), min_p [0,1],
// repeat_penalty (> 0), and (chat) chat_template_kwargs (an object of extra chat-template variables,
// at most 32 levels of arrays and objects deep, as llama-server and vLLM take it;
// docs/chat-templates.md), logit_bias, log probabilities (chat: logprobs true/false and
// top_logprobs 0..20; completions: logprobs 0..20, not with echo), (completions) echo, and (chat)
// tools, tool_choice and parallel_tool_calls (openai/tool_request.h), (chat) response_format and
// (both) grammar (openai/structured_output.h; not together with active tools).
// A null value means "not given". Known OpenAI features we do not implement (audio, …) and any
// other field are refused: Error "unsupported_field" with the field as param. Defaults follow OpenAI: temperature 1, top_p 1, no top_k / min_p.
//
// messages are parsed by chat::parse_messages under MessagePolicy::kApi (chat/messages.h): roles
// system, user, assistant, tool and developer (= system), content a string or text parts joined with
// "\n", an optional name, tool_calls on assistant messages and tool_call_id on tool messages.
//
// Every error is an ApiError (HTTP 400) whose message names the field, never its value.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/completion.h"
#include "runtime/embeddings.h"
#include "openai/tool_request.h"

namespace a3s::power::openai {

struct ParsedCompletion {
  runtime::CompletionRequest request;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  bool echo = false;           // /v1/completions: the prompt, as given, precedes the completion
  int n = 1;                   // choices: each one a generation of its own (run_completion's `choice`)
  ToolRequest tools;           // chat: tools, tool_choice, parallel_tool_calls (openai/tool_request.h)
};

// POST /v1/embeddings (OpenAI "Create embeddings"): model, input (a string, an array of strings, an
// array of token ids, or an array of arrays of token ids; at most 2048 inputs, none empty),
// encoding_format ("float" | "base64"), dimensions (accepted only when it equals the model's width:
// run_embeddings checks it), user. Errors as for completions: ApiError naming the field, never a value.
struct ParsedEmbedding {
  runtime::EmbeddingRequest request;  // with `dimensions` when given
  bool base64 = false;                // encoding_format "base64": little-endian float32 bytes
};
ParsedEmbedding parse_embedding(const nlohmann::json& body);

// Parses a JSON object body. Throws ApiError(codes::kInvalidJson) for malformed JSON or a non-object.
nlohmann::json parse_json_object(const std::string& body);

// raw_body: the body's text, when at hand: the tools are read from it in the client's key order
// (else from `body`, in sorted key order).
ParsedCompletion parse_chat_completion(const nlohmann::json& body, const std::string& raw_body = {});
ParsedCompletion parse_text_completion(const nlohmann::json& body);

}  // namespace a3s::power::openai
