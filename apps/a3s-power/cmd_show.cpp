// `a3s-power show NAME [--format text|json]`: a stored model's manifest and a summary of its GGUF
// metadata (architecture, training context, sizes, vocabulary, quantization, chat template).
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "a3s/power/error.h"
#include "a3s/power/engine.h"
#include "a3s-power/command.h"
#include "a3s-power/model_flags.h"
#include "store/manifest_json.h"
#include "store/model_name.h"
#include "store/model_summary.h"
#include "store/store.h"

namespace a3s::power::cli {
namespace {

nlohmann::json opt(const std::optional<uint64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string opt_text(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : "-";
}

// With --memory-budget: the residency, prefill batch and largest context the budget allows
// (docs/layer-streaming.md), from a load that reads no weights (stream) or maps them lazily.
struct BudgetPlan {
  std::string weights;
  uint64_t budget = 0;
  int n_ctx_max = 0, n_batch = 0;
};

std::optional<BudgetPlan> budget_plan(const std::string& blob, const ModelFlags& flags) {
  if (flags.memory_budget.empty()) return std::nullopt;
  std::shared_ptr<Model> model = Model::load(blob, model_options(flags));
  const ModelInfo& i = model->info();
  return BudgetPlan{std::string(to_string(i.weights)), i.memory_budget, i.n_ctx_max, i.n_batch};
}

void run_show(const std::string& name, const std::string& format, const ModelFlags& flags) {
  store::Store s(store::default_home());
  const auto m = s.find(name);
  if (!m) {
    const bool printable = store::model_name_problem(name).empty();
    throw Error(codes::kModelNotFound,
                "model not found in the store" + (printable ? ": " + name : std::string{}));
  }
  const std::string blob = s.blob_path(m->digest);
  const store::ModelSummary d = store::summarize_model_file(blob);
  const std::optional<BudgetPlan> plan = budget_plan(blob, flags);

  if (format == "json") {
    nlohmann::json j = store::manifest_to_json(*m);
    j["path"] = blob;
    j["details"] = {{"architecture", d.architecture},
                    {"quantization", d.quantization},
                    {"n_ctx_train", opt(d.n_ctx_train)},
                    {"n_embd", opt(d.n_embd)},
                    {"n_layer", opt(d.n_layer)},
                    {"n_head", opt(d.n_head)},
                    {"n_head_kv", opt(d.n_head_kv)},
                    {"n_vocab", opt(d.n_vocab)},
                    {"n_params", d.n_params},
                    {"n_tensors", d.n_tensors},
                    {"chat_template", d.has_chat_template}};
    if (plan)
      j["memory_plan"] = {{"weights", plan->weights},
                          {"memory_budget_bytes", plan->budget},
                          {"n_ctx_max", plan->n_ctx_max},
                          {"n_batch", plan->n_batch}};
    std::cout << j.dump(2) << std::endl;
    return;
  }
  auto row = [](const char* k, const std::string& v) { std::printf("%-14s %s\n", k, v.c_str()); };
  row("name", m->name);
  row("digest", m->digest);
  row("size", std::to_string(m->size) + " bytes");
  row("format", m->format);
  row("source", m->source);
  row("created", m->created);
  row("path", blob);
  row("architecture", d.architecture.empty() ? "-" : d.architecture);
  row("quantization", d.quantization.empty() ? "-" : d.quantization);
  row("n_ctx_train", opt_text(d.n_ctx_train));
  row("n_embd", opt_text(d.n_embd));
  row("layers", opt_text(d.n_layer));
  row("heads", opt_text(d.n_head) + (d.n_head_kv ? " (kv " + std::to_string(*d.n_head_kv) + ")" : ""));
  row("vocab", opt_text(d.n_vocab));
  row("parameters", std::to_string(d.n_params));
  row("chat template", d.has_chat_template ? "yes" : "no");
  if (plan) {
    row("weights", plan->weights);
    row("memory budget", std::to_string(plan->budget) + " bytes");
    row("max context", std::to_string(plan->n_ctx_max) + " tokens (within the budget)");
    row("prefill batch", std::to_string(plan->n_batch) + " tokens");
  }
}

}  // namespace

void add_show_command(CLI::App& root) {
  auto name = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  auto flags = std::make_shared<ModelFlags>();
  CLI::App* sub = root.add_subcommand("show", "Show a stored model's manifest and GGUF metadata summary");
  sub->add_option("name", *name, "Model name")->required();
  sub->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  add_model_flags(sub, *flags);
  sub->callback([name, format, flags] { run_show(*name, *format, *flags); });
}

}  // namespace a3s::power::cli
