// Flags every command that loads a model shares: worker threads, weight residency and the memory
// budget (docs/layer-streaming.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "a3s/power/engine.h"

namespace a3s::power::cli {

struct ModelFlags {
  int threads = 0;
  std::string weights = "auto";
  std::string memory_budget;  // "" = none; "256M", "2G", bytes
};

// Adds --threads/-t, --weights and --memory-budget to `cmd`.
void add_model_flags(CLI::App* cmd, ModelFlags& flags);

// The engine options for the flags. Throws Error(codes::kInvalidArgument) naming the flag.
ModelOptions model_options(const ModelFlags& flags);

}  // namespace a3s::power::cli
