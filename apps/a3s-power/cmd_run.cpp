// `a3s-power run`: chat with a model in this process (no server), like `ollama run`.
//
//   a3s-power run NAME|PATH [PROMPT...] [--system TEXT] [--temperature T] [--seed S] [-n N]
//                 [--threads N] [--ctx-size N] [--model-key-file K] [--decrypt file|memory]
//
// The model is a GGUF file path or a model name in the store ($A3S_POWER_HOME, see store.h); an
// encrypted model file is decrypted into memory (a3s-power/decrypt_flags.h).
// Each turn renders the whole conversation with the model's chat template (src/chat; models
// without one use the plain format, where a single user message is just its text) and streams the
// reply to stdout. PROMPT given: one turn, then exit 0. No PROMPT: stdin a terminal → interactive
// session (see a3s-power/conversation_loop.h); otherwise all of stdin is the prompt.
// The KV cache is kept between turns: only the part of the rendered conversation that differs
// from what the cache holds is evaluated. With the plain format and more than one message the
// reply also stops at a new "User:" line (the format's next turn).
// Errors: unknown model → Error(codes::kModelNotFound) (exit 2); a conversation longer than the
// context → "context_length_exceeded" (exit 2; in a session: printed, /clear starts over).
#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "chat/chat_template.h"
#include "chat/messages.h"
#include "a3s-power/command.h"
#include "a3s-power/decrypt_flags.h"
#include "a3s-power/model_flags.h"
#include "a3s-power/conversation_loop.h"
#include "engine/generator.h"
#include "engine/load.h"
#include "runtime/prompt_builder.h"
#include "store/model_reference.h"
#include "store/store.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::cli {
namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> prompt;
  std::optional<std::string> system;
  float temperature = 0.8f;
  std::optional<uint64_t> seed;
  int n_predict = -1;
  ModelFlags model_flags;
  int ctx_size = 0;
  DecryptFlags decrypt;
};

// The engine side of a conversation: one model, one context reused across turns.
class LocalChat {
 public:
  explicit LocalChat(const RunOptions& o)
      : model_(load_model(store::resolve_model_file(o.model, store::Store(store::default_home())), LoadOptions{.model = model_options(o.model_flags),
                                                              .decrypt = decrypt_options(o.decrypt),
                                                              .integrity = {}})),
        ctx_(model_, ContextOptions{.n_ctx = o.ctx_size}),
        template_(chat::ChatTemplate::create(model_->info().chat_template)),
        n_predict_(o.n_predict) {
    sampling_.temperature = o.temperature;
    sampling_.seed = o.seed;
  }

  std::string reply(const client::Turn& turn) {
    std::vector<Token> prompt = encode(turn.messages);
    const int n_prompt = static_cast<int>(prompt.size());
    if (n_prompt >= ctx_.n_ctx()) {
      throw Error(codes::kContextLengthExceeded,
                  "the conversation is " + std::to_string(n_prompt) + " tokens but the context holds " +
                      std::to_string(ctx_.n_ctx()) + " (use /clear or a larger --ctx-size)");
    }
    // Keep the cached prefix the new prompt shares; at least one token is evaluated afresh.
    std::span<const Token> cached = ctx_.tokens();
    const std::size_t limit = std::min(cached.size(), prompt.size() - 1);
    std::size_t keep = 0;
    while (keep < limit && cached[keep] == prompt[keep]) ++keep;
    ctx_.truncate(static_cast<int>(keep));

    GenerationRequest req;
    req.prompt = std::move(prompt);
    req.sampling = sampling_;
    req.max_tokens = n_predict_;
    req.cancel = turn.cancel;
    if (template_->family() == "plain" && turn.messages.size() > 1) req.stop = {"\nUser:"};
    GenerationResult res = generate(ctx_, req, [&](std::string_view text, Token) {
      if (!text.empty()) turn.emit(text);
      return true;
    });
    return res.text;
  }

 private:
  std::vector<Token> encode(const chat::Messages& messages) const {
    std::vector<Token> tokens = runtime::PromptBuilder(model_->tokenizer(), *template_).chat(messages);
    if (tokens.empty()) throw Error(codes::kInvalidArgument, "the prompt is empty");
    return tokens;
  }

  std::shared_ptr<Model> model_;
  Context ctx_;
  std::unique_ptr<chat::ChatTemplate> template_;
  SamplingParams sampling_;
  int n_predict_;
};

void run_run(const RunOptions& o) {
  if (o.ctx_size < 0) throw Error(codes::kInvalidArgument, "--ctx-size must not be negative");
  if (o.temperature < 0) throw Error(codes::kInvalidArgument, "--temperature must not be negative");
  auto local = std::make_shared<LocalChat>(o);
  client::LoopOptions lo;
  lo.system = o.system;
  client::ConversationLoop loop(lo, [local](const client::Turn& t) { return local->reply(t); });
  client::run_conversation(loop, o.prompt, client::PipedInput::kWholeInput);
}

}  // namespace

void add_run_command(CLI::App& root) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub =
      root.add_subcommand("run", "Chat with a model in this process (one prompt, or interactively)");
  sub->add_option("model", o->model, "GGUF file path or model name in the store")->required();
  sub->add_option("prompt", o->prompt, "Prompt (one turn, then exit); without it: interactive or stdin");
  sub->add_option("--system", o->system, "System message");
  sub->add_option("--temperature", o->temperature, "Sampling temperature (0: greedy)")->capture_default_str();
  sub->add_option("--seed", o->seed, "Sampling seed (default: random)");
  sub->add_option("-n,--n-predict", o->n_predict, "Maximum tokens per reply (-1: until the context is full)")
      ->capture_default_str();
  add_model_flags(sub, o->model_flags);
  sub->add_option("--ctx-size,-c", o->ctx_size, "Context size in tokens (0: min(trained, 4096))")
      ->capture_default_str();
  add_decrypt_flags(sub, o->decrypt);
  sub->callback([o] { run_run(*o); });
}

}  // namespace a3s::power::cli
