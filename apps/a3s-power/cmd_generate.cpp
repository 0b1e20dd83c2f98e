// `a3s-power generate`: load a model, tokenize a prompt (with BOS as the model asks), generate and
// print either the streamed text or one JSON line with the tokens and text.
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/decrypt_flags.h"
#include "a3s-power/model_flags.h"
#include "engine/generator.h"
#include "engine/load.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::cli {
namespace {

struct GenerateOptions {
  std::string model;
  std::string prompt;
  int n_predict = 128;
  float temperature = 0.8f;
  int top_k = 40;
  float top_p = 0.95f;
  float min_p = 0.05f;
  std::optional<uint64_t> seed;
  ModelFlags model_flags;
  int ctx_size = 0;
  std::string format = "text";
  DecryptFlags decrypt;
};

void run_generate(const GenerateOptions& o) {
  if (o.ctx_size < 0) throw Error(codes::kInvalidArgument, "--ctx-size must not be negative");
  LoadOptions lo;
  lo.model = model_options(o.model_flags);
  lo.decrypt = decrypt_options(o.decrypt);
  std::shared_ptr<Model> model = load_model(o.model, lo);
  Context ctx(model, ContextOptions{.n_ctx = o.ctx_size});

  GenerationRequest req;
  req.prompt = model->tokenizer().encode(o.prompt, /*add_special=*/true, /*parse_special=*/false);
  req.max_tokens = o.n_predict;
  req.sampling.temperature = o.temperature;
  req.sampling.top_k = o.top_k;
  req.sampling.top_p = o.top_p;
  req.sampling.min_p = o.min_p;
  req.sampling.seed = o.seed;

  const bool text = o.format == "text";
  GenerationResult res = generate(ctx, req, [&](std::string_view delta, Token) {
    if (text && !delta.empty()) {
      std::fwrite(delta.data(), 1, delta.size(), stdout);
      std::fflush(stdout);
    }
    return true;
  });
  if (text) {
    std::fputc('\n', stdout);
    return;
  }
  nlohmann::json j;
  j["prompt_tokens"] = req.prompt;
  j["tokens"] = res.tokens;
  j["text"] = res.text;
  j["finish_reason"] = to_string(res.finish);
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

}  // namespace

void add_generate_command(CLI::App& root) {
  auto opts = std::make_shared<GenerateOptions>();
  CLI::App* sub = root.add_subcommand("generate", "Generate text from a prompt with a local GGUF model");
  sub->add_option("--model,-m", opts->model, "Path to a GGUF model file")->required();
  sub->add_option("--prompt,-p", opts->prompt, "Prompt text")->required();
  sub->add_option("-n,--n-predict", opts->n_predict, "Maximum tokens to generate (-1: until the context is full)")
      ->capture_default_str();
  sub->add_option("--temperature", opts->temperature, "Sampling temperature (0: greedy)")->capture_default_str();
  sub->add_option("--top-k", opts->top_k, "Top-k (<= 0: disabled)")->capture_default_str();
  sub->add_option("--top-p", opts->top_p, "Top-p (>= 1: disabled)")->capture_default_str();
  sub->add_option("--min-p", opts->min_p, "Min-p (<= 0: disabled)")->capture_default_str();
  sub->add_option("--seed", opts->seed, "Sampling seed (default: random)");
  add_model_flags(sub, opts->model_flags);
  sub->add_option("--ctx-size,-c", opts->ctx_size, "Context size in tokens (0: min(trained, 4096))")
      ->capture_default_str();
  sub->add_option("--format", opts->format, "Output format")
      ->check(CLI::IsMember({"json", "text"}))
      ->capture_default_str();
  add_decrypt_flags(sub, opts->decrypt);
  sub->callback([opts] { run_generate(*opts); });
}

}  // namespace a3s::power::cli
