#include "runtime/completion.h"

#include <algorithm>
#include <exception>

#include "privacy/wipe_text.h"
#include "runtime/caller_text.h"

namespace a3s::power::runtime {

CompletionRequest::~CompletionRequest() {
  if (messages) wipe_messages(*messages);
  privacy::wipe_string(prompt);
  for (auto& s : stop) privacy::wipe_string(s);
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
                    const CompletionRequest& request, const std::atomic<bool>& cancel, CompletionSink& sink) {
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
      privacy::wipe_vector(r.tokens);
      privacy::wipe_string(r.text);
      privacy::wipe_string(out.text);
      if (ctx) ctx->wipe();
    }
  } request_end{gen, r, out, used};

  int slot_n_ctx = 0;
  try {
    gen.prompt = request.messages ? model->chat_prompt(*request.messages) : model->text_prompt(request.prompt);
    RuntimeContext& ctx = slot.context_for(model);
    used = &ctx;
    slot_n_ctx = ctx.n_ctx();
    const int n_prompt = static_cast<int>(gen.prompt.size());
    if (n_prompt >= slot_n_ctx) throw context_exceeded(slot_n_ctx);
    const int room = slot_n_ctx - n_prompt;
    gen.max_tokens = request.max_tokens ? std::min(*request.max_tokens, room) : room;
    gen.sampling = request.sampling;
    gen.stop = request.stop;
    gen.cancel = &cancel;
    sink.started(gen.prompt);
    r = model->generate(ctx, gen, [&](std::string_view text, Token) { return sink.delta(text); });
    out.text = std::move(r.text);
    out.finish = r.finish;
    out.prompt_tokens = r.n_prompt_tokens > 0 ? r.n_prompt_tokens : n_prompt;
    out.completion_tokens = static_cast<int>(r.tokens.size());
    sink.finished(out);
  } catch (const Error& e) {
    // The engine's own message carries exact token counts: replaced by the templated one.
    if (e.kind() == codes::kContextLengthExceeded) {
      sink.failed(context_exceeded(slot_n_ctx));
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
