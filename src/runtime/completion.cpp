#include "runtime/completion.h"
#include "runtime/tool_grammar.h"

#include <algorithm>
#include <exception>

#include "chat/field_error.h"
#include "privacy/wipe_text.h"
#include "runtime/caller_text.h"

namespace a3s::power::runtime {

CompletionRequest::~CompletionRequest() {
  if (messages) wipe_messages(*messages);
  privacy::wipe_string(prompt);
  if (suffix) privacy::wipe_string(*suffix);
  for (auto& s : stop) privacy::wipe_string(s);
  if (cache_key) privacy::wipe_string(*cache_key);
  privacy::wipe_json(chat_template_kwargs);
  privacy::wipe_string(reasoning_effort);
  privacy::wipe_json(tools);
  privacy::wipe_vector(sampling.logit_bias);
}

ChatPromptOptions chat_prompt_options(const CompletionRequest& request) {
  ChatPromptOptions options;
  options.template_kwargs = &request.chat_template_kwargs;
  options.reasoning_effort = request.reasoning_effort;
  if (!request.tools.is_null()) options.tools = &request.tools;
  return options;
}

std::vector<Token> ModelRuntime::infill_prompt(const std::string&, const std::string&) const {
  throw chat::FieldError(codes::kUnsupportedField, "suffix", "'suffix' needs a model with fill-in-the-middle tokens");
}

chat::ReasoningStart ModelRuntime::reasoning_start(std::span<const Token>) const { return chat::ReasoningStart::kNone; }

std::shared_ptr<const KvSnapshot> ModelRuntime::snapshot_prefix(RuntimeContext&, int) const {
  throw Error(codes::kPromptCacheUnsupported, "this model cannot use the prompt cache");
}
void ModelRuntime::restore_prefix(RuntimeContext&, const KvSnapshot&, int) const {
  throw Error(codes::kPromptCacheUnsupported, "this model cannot use the prompt cache");
}
bool ModelRuntime::reserve_kv(RuntimeContext&, int, std::chrono::steady_clock::time_point,
                              const std::atomic<bool>*) const {
  return true;
}

const char* finish_reason_name(FinishReason r) { return r == FinishReason::Length ? "length" : "stop"; }

namespace {
// Names the context size only: the prompt's token count is not reported (docs/privacy.md).
Error context_exceeded(int n_ctx) {
  return Error(codes::kContextLengthExceeded, "the prompt does not fit the model's context of " +
                                                  std::to_string(n_ctx) + " tokens (prompt and completion)");
}
}  // namespace

void run_completion(Slot& slot, const std::shared_ptr<const ModelRuntime>& model,
                    const CompletionRequest& request, const std::atomic<bool>& cancel, CompletionSink& sink,
                    PromptCache* cache, int choice) {
  // Everything this request leaves behind is wiped when it ends, however it ends (docs/privacy.md):
  // the prompt tokens, the generated tokens and text, and the slot context's KV cache and buffers.
  GenerationRequest gen;
  GenerationResult r;
  CompletionResult out;
  RuntimeContext* used = nullptr;
  struct RequestEnd {
    GenerationRequest& gen;
    GenerationResult& r;
    CompletionResult& out;
    RuntimeContext*& ctx;
    ~RequestEnd() {
      privacy::wipe_vector(gen.prompt);
      privacy::wipe_vector(gen.sampling.logit_bias);
      privacy::wipe_vector(r.tokens);
      privacy::wipe_string(r.text);
      privacy::wipe_string(out.text);
      if (ctx) ctx->wipe();
    }
  } request_end{gen, r, out, used};

  int slot_n_ctx = 0;
  try {
    const bool keyed = request.cache_key.has_value();
    if (keyed && (!cache || !model->supports_prefix_snapshots()))
      throw Error(codes::kPromptCacheUnsupported, "prompt_cache_key cannot be honoured for this model");
    if (const auto& bias = request.sampling.logit_bias; !bias.empty() && bias.back().id >= model->description().n_vocab) {
      throw chat::FieldError(codes::kInvalidRequest, "logit_bias",
                             "'logit_bias' names a token id that is not in the model's vocabulary of " +
                                 std::to_string(model->description().n_vocab) + " tokens");
    }
    if (request.parse_tool_calls && model->tool_call_syntax() == chat::ToolCallSyntax::kNone) {
      throw chat::FieldError(codes::kUnsupportedField, "tools",
                             "'tools' cannot be used with this model: its chat template writes no tool calls the "
                             "server can read");
    }
    if (request.messages) {
      gen.prompt = model->chat_prompt(*request.messages, chat_prompt_options(request));
    } else if (request.suffix) {
      gen.prompt = model->infill_prompt(request.prompt, *request.suffix);
    } else {
      gen.prompt = model->text_prompt(request.prompt);
    }
    RuntimeContext& ctx = slot.context_for(model);
    used = &ctx;
    slot_n_ctx = ctx.n_ctx();
    const int n_prompt = static_cast<int>(gen.prompt.size());
    if (n_prompt >= slot_n_ctx) throw context_exceeded(slot_n_ctx);
    const int room = slot_n_ctx - n_prompt;
    gen.max_tokens = request.max_tokens ? std::min(*request.max_tokens, room) : room;
    gen.sampling = request.sampling;
    if (gen.sampling.seed) *gen.sampling.seed += static_cast<uint64_t>(choice);
    if (request.logprobs >= 0) {
      gen.logprobs = request.logprobs;
      gen.on_logprobs = [&sink](const TokenLogprobs& lp) { sink.logprobs(lp); };
    }
    gen.stop = request.stop;
    gen.cancel = &cancel;
    gen.render_control_tokens = request.parse_tool_calls;
    gen.grammar = request.grammar;
    if (request.parse_tool_calls && request.tool_call_required) {
      gen.grammar = tool_call_grammar(model->tool_call_syntax(), request.tools, request.tool_call_name,
                                      request.parallel_tool_calls);
      gen.stop.clear();  // a stop string must not cut a call the grammar is writing
    }
    CacheDigest scope{}, identity{};
    if (keyed) {
      const ModelDescription& d = model->description();
      scope = cache->scope(request.cache_identity, request.cache_endpoint,
                           d.sha256.empty() ? "id:" + d.instance_id : "sha256:" + d.sha256, *request.cache_key);
      identity = cache->identity_tag(request.cache_identity);
      PromptCache::Hit hit = cache->lookup(scope, model, gen.prompt);
      if (hit.snapshot) {
        model->restore_prefix(ctx, *hit.snapshot, hit.n);
        out.cached_tokens = hit.n;
      }
      out.cache_used = true;
    }
    // Admission to the KV cache: the blocks the prompt and the whole completion can need are
    // reserved before anything is evaluated, so the request never fails midway for lack of them.
    // Under pressure this model's prompt-cache entries give their blocks back first.
    const int n_reserve = n_prompt + gen.max_tokens;
    const auto now = std::chrono::steady_clock::now();
    if (!model->reserve_kv(ctx, n_reserve, now, &cancel)) {
      if (cache) cache->evict_model(model);
      if (!model->reserve_kv(ctx, n_reserve, now + request.kv_wait, &cancel)) {
        if (cancel.load()) throw Error(codes::kCancelled, "the request was cancelled");
        throw Error(codes::kQueueTimeout, "no KV cache blocks were free within the queue timeout");
      }
    }
    // A reply held to a grammar is all answer: no thinking is split from it.
    if (request.messages) sink.reasoning(gen.grammar ? chat::ReasoningStart::kNone : model->reasoning_start(gen.prompt));
    if (request.parse_tool_calls) sink.tool_calls(model->tool_call_syntax());
    sink.started(gen.prompt);
    r = model->generate(ctx, gen, [&](std::string_view text, Token) { return sink.delta(text); });
    if (keyed) {
      cache->record_evaluated(n_prompt - out.cached_tokens);
      // The prompt's positions are in the context now (the last one only when a token was decoded
      // after it); a cancelled or empty generation stores nothing.
      if (r.finish != FinishReason::Cancelled && gen.max_tokens != 0 && n_prompt > 1) {
        try {
          cache->store(scope, identity, model, model->snapshot_prefix(ctx, n_prompt));
        } catch (const Error&) {
          // No memory for the snapshot: the answer stands, the prompt is just not cached.
        }
      }
    }
    out.prefill_ms = r.prefill_ms;
    out.text = std::move(r.text);
    out.finish = r.finish;
    out.stop_index = r.stop_index;
    out.prompt_tokens = r.n_prompt_tokens > 0 ? r.n_prompt_tokens : n_prompt;
    out.completion_tokens = static_cast<int>(r.tokens.size());
    // The context is wiped (its KV blocks back in the pool) before the answer is reported, so a
    // client that has its answer finds the blocks free.
    ctx.wipe();
    used = nullptr;
    sink.finished(out);
  } catch (const Error& e) {
    // The engine's own message carries exact token counts: replaced by the templated one.
    if (e.kind() == codes::kContextLengthExceeded) {
      sink.failed(context_exceeded(slot_n_ctx));
    } else if (e.kind() == codes::kIo) {
      // The model's bytes became unreadable while it serves (a streamed file truncated or gone):
      // the server's fault, not the request's. The detail (a file path) is for the operator only.
      sink.failed(Error(codes::kInternal, std::string("the model's weights could not be read: ") + e.what()));
    } else {
      sink.failed(e);
    }
  } catch (const std::bad_alloc&) {
    sink.failed(Error(codes::kInternal, "out of memory during generation"));
  } catch (const std::exception&) {
    sink.failed(Error(codes::kInternal, "generation failed"));
  }
}

}  // namespace a3s::power::runtime
