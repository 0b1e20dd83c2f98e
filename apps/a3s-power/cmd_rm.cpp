// `a3s-power rm NAME`: removes a model's manifest from the store, and its blob when no other name
// uses it. An unknown name is an error (exit 2).
#include <cstdio>
#include <memory>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "store/model_name.h"
#include "store/store.h"

namespace a3s::power::cli {
namespace {

void run_rm(const std::string& name) {
  if (!store::Store(store::default_home()).remove(name))
    throw Error(codes::kModelNotFound,
                "model not found in the store" +
                    (store::model_name_problem(name).empty() ? ": " + name : std::string{}));
  std::printf("removed %s\n", name.c_str());
}

}  // namespace

void add_rm_command(CLI::App& root) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = root.add_subcommand("rm", "Remove a model from the store");
  sub->add_option("name", *name, "Model name")->required();
  sub->callback([name] { run_rm(*name); });
}

}  // namespace a3s::power::cli
