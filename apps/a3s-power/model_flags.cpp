#include "a3s-power/model_flags.h"

#include "a3s/power/error.h"

namespace a3s::power::cli {

void add_model_flags(CLI::App* cmd, ModelFlags& f) {
  cmd->add_option("--threads,-t", f.threads, "Worker threads (0: physical cores)")->capture_default_str();
  cmd->add_option("--weights", f.weights, "Weight residency: resident (mmap), stream (read each layer when used), "
                                          "auto (stream when over --memory-budget)")
      ->check(CLI::IsMember({"auto", "resident", "stream"}))
      ->capture_default_str();
  cmd->add_option("--memory-budget", f.memory_budget,
                  "Memory the model may use, e.g. 256M or 2G (caps the context; picks streaming with auto)");
}

ModelOptions model_options(const ModelFlags& f) {
  if (f.threads < 0 || f.threads > 1024) throw Error(codes::kInvalidArgument, "--threads must be in 0..1024");
  ModelOptions o;
  o.n_threads = f.threads;
  const std::optional<WeightsMode> weights = parse_weights_mode(f.weights);
  if (!weights) throw Error(codes::kInvalidArgument, "--weights must be one of auto, resident, stream");
  o.weights = *weights;
  if (!f.memory_budget.empty()) {
    const auto b = parse_memory_size(f.memory_budget);
    if (!b) throw Error(codes::kInvalidArgument, "--memory-budget must be a size such as 256M or 2G");
    o.memory_budget = *b;
  }
  return o;
}

}  // namespace a3s::power::cli
