#include "serving/completion.h"

#include <algorithm>
#include <exception>

namespace a3s::power::serving {

const char* finish_reason_name(FinishReason r) { return r == FinishReason::Length ? "length" : "stop"; }

void run_completion(Slot& slot, const std::shared_ptr<const ModelRuntime>& model,
                    const CompletionRequest& request, const std::atomic<bool>& cancel, CompletionSink& sink) {
  try {
    GenerationRequest gen;
    gen.prompt = request.messages ? model->chat_prompt(*request.messages) : model->text_prompt(request.prompt);
    RuntimeContext& ctx = slot.context_for(model);
    const int n_ctx = ctx.n_ctx();
    const int n_prompt = static_cast<int>(gen.prompt.size());
    if (n_prompt >= n_ctx) {
      throw Error(codes::kContextLengthExceeded,
                  "the prompt is " + std::to_string(n_prompt) + " tokens but the model's context holds " +
                      std::to_string(n_ctx) + " tokens (including the completion)");
    }
    const int room = n_ctx - n_prompt;
    gen.max_tokens = request.max_tokens ? std::min(*request.max_tokens, room) : room;
    gen.sampling = request.sampling;
    gen.stop = request.stop;
    gen.cancel = &cancel;
    sink.started(n_prompt);
    GenerationResult r = model->generate(ctx, gen, [&](std::string_view text, Token) { return sink.delta(text); });
    CompletionResult out;
    out.text = std::move(r.text);
    out.finish = r.finish;
    out.prompt_tokens = r.n_prompt_tokens > 0 ? r.n_prompt_tokens : n_prompt;
    out.completion_tokens = static_cast<int>(r.tokens.size());
    sink.finished(out);
  } catch (const Error& e) {
    sink.failed(e);
  } catch (const std::bad_alloc&) {
    sink.failed(Error(codes::kInternal, "out of memory during generation"));
  } catch (const std::exception&) {
    sink.failed(Error(codes::kInternal, "generation failed"));
  }
}

}  // namespace a3s::power::serving
