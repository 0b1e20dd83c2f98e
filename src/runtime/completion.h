// One completion request as the serving layer runs it: prompt preparation, the context-length
// check, and the generation on a slot, reporting progress to a CompletionSink.
#pragma once

#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/error.h"
#include "chat/messages.h"
#include "grammar/grammar.h"
#include "sampling/logprobs.h"
#include "sampling/sampler.h"
#include "runtime/model_runtime.h"
#include "runtime/prompt_cache.h"
#include "runtime/slot.h"

namespace a3s::power::runtime {

// The most alternatives a request may ask for per token (CompletionRequest::logprobs).
inline constexpr int kMaxTopLogprobs = sampling::kMaxTopLogprobs;

// The request's text (messages, prompt, stop strings) is wiped when the object is destroyed.
struct CompletionRequest {
  std::string model;                       // served model name
  std::optional<chat::Messages> messages;  // chat (chat/messages.h); else `prompt` is used
  std::string prompt;                      // text completion
  std::optional<std::string> suffix;       // text completion: fill in between prompt and suffix (FIM)
  SamplingParams sampling;
  std::optional<int> max_tokens;           // none → until EOG, a stop string or the context is full
  std::vector<std::string> stop;
  // chat_template_kwargs (chat only): a JSON object of extra chat-template variables, or null
  // (chat/chat_template.h RenderOptions::template_kwargs). Caller values: wiped with the request.
  nlohmann::ordered_json chat_template_kwargs = nullptr;
  // reasoning_effort (chat only; "" when not given): the template variable of that name.
  std::string reasoning_effort;
  // tools (chat only): the OpenAI `tools` array as given, for the template to render, or null.
  // Caller values: wiped with the request.
  nlohmann::ordered_json tools = nullptr;
  // The reply is read for tool calls (tools given, tool_choice not "none"): the model's tool-call
  // syntax goes to CompletionSink::tool_calls() and control tokens come as text. A model whose
  // template has none (ModelRuntime::tool_call_syntax) fails with FieldError "tools".
  bool parse_tool_calls = false;
  // With parse_tool_calls: the reply must be tool calls (tool_choice "required"), of the function
  // named here when it is not empty (a named tool_choice); enforced by a grammar in the model's
  // tool-call syntax (runtime/tool_grammar.h) whose arguments follow each function's parameters.
  bool tool_call_required = false;
  std::string tool_call_name;
  bool parallel_tool_calls = true;  // more than one call in a reply
  // The grammar the reply must follow (response_format, `grammar`: openai/structured_output.h).
  std::shared_ptr<const grammar::Grammar> grammar;
  // prompt_cache_key (docs/prompt-cache.md): with cache_key set, the prompt-prefix cache is used
  // under the scope (cache_identity, cache_endpoint, the model's digest, cache_key); the key is
  // wiped once the scope is derived and with the request.
  std::optional<std::string> cache_key;
  std::string cache_identity;  // the authenticated identity ("" without API keys)
  std::string cache_endpoint;  // "/v1/chat/completions" | "/v1/completions"
  // Log probabilities (GenerationRequest::logprobs): < 0 none, else each generated token's log
  // probability and this many alternatives (0..kMaxTopLogprobs) go to CompletionSink::logprobs().
  int logprobs = -1;
  // Longest wait for KV cache blocks before the prompt is evaluated (the queue timeout): then
  // Error(codes::kQueueTimeout), HTTP 503.
  std::chrono::milliseconds kv_wait{30'000};

  CompletionRequest() = default;
  CompletionRequest(CompletionRequest&&) noexcept = default;
  CompletionRequest& operator=(CompletionRequest&&) noexcept = default;
  CompletionRequest(const CompletionRequest&) = delete;
  CompletionRequest& operator=(const CompletionRequest&) = delete;
  ~CompletionRequest();
};

// What the request gives the chat template besides its messages (pointers into `request`).
ChatPromptOptions chat_prompt_options(const CompletionRequest& request);

struct CompletionResult {
  std::string text;              // generated text (stop string excluded)
  FinishReason finish = FinishReason::Stop;
  int stop_index = -1;           // the stop string that ended it (index in CompletionRequest::stop), else -1
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int cached_tokens = 0;     // prompt tokens restored from the prompt-prefix cache
  bool cache_used = false;   // the request was keyed (prompt_cache_key) and the cache consulted
  double prefill_ms = 0;     // prompt evaluation time (the cached part excluded)
};

// Receives one job's events on the worker thread, in order: started → delta* → finished, or
// failed (at any point before finished; nothing else follows it).
class CompletionSink {
 public:
  virtual ~CompletionSink() = default;
  // Chat requests only, just before started(): where the reply starts for a reasoning model
  // (ModelRuntime::reasoning_start).
  virtual void reasoning(chat::ReasoningStart) {}
  // With CompletionRequest::parse_tool_calls, just before started(): the syntax to read the reply's
  // tool calls in.
  virtual void tool_calls(chat::ToolCallSyntax) {}
  // The prompt's token ids after the chat template (valid during the call only; wiped afterwards).
  virtual void started(std::span<const Token> prompt) = 0;
  // A whole-UTF-8 text delta (may be empty for a token that completed no character yet). Return
  // false to cancel the generation.
  virtual bool delta(std::string_view text) = 0;
  // With CompletionRequest::logprobs >= 0: one generated token's log probabilities, before the
  // delta that carries its text (the object is reused: copy what you keep).
  virtual void logprobs(const TokenLogprobs&) {}
  virtual void finished(const CompletionResult& result) = 0;
  virtual void failed(const Error& error) = 0;
};

// Tokenizes the prompt, checks it fits (a prompt of n_ctx tokens or more →
// Error "context_length_exceeded", naming the context size but not the prompt's token count; never
// truncated), clamps max_tokens to the room left, and generates on the slot's context for `model`.
// Never throws: every failure goes to sink.failed(). When it returns, the prompt tokens, the generated
// tokens and text it held and the slot context (RuntimeContext::wipe) are zeroed.
// With request.cache_key: the longest prefix of the prompt the cache holds for the request's scope
// is restored and only the rest evaluated, and the prompt's prefix is stored afterwards; without a
// cache, or on a model runtime that cannot snapshot → Error "prompt_cache_unsupported".
// `choice` numbers one of several completions of the same request (the API's `n`): with a seed,
// choice i samples with seed + i, so the choices differ and each is reproducible.
void run_completion(Slot& slot, const std::shared_ptr<const ModelRuntime>& model,
                    const CompletionRequest& request, const std::atomic<bool>& cancel, CompletionSink& sink,
                    PromptCache* cache = nullptr, int choice = 0);

// "stop" | "length" (a cancelled generation reports "stop").
const char* finish_reason_name(FinishReason r);

}  // namespace a3s::power::runtime
