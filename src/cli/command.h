// CLI command registry. Each `cmd_<name>.cpp` registers its subcommand with a static Registrar;
// main.cpp builds the CLI11 app from the registry. A command's callback throws a3s::power::Error
// on failure; main maps the error code to the exit status (2 bad input, 1 internal).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace a3s::power::cli {

struct CommandSpec {
  std::string name;
  int order;  // position in --help
  std::function<void(CLI::App& root)> setup;  // adds the subcommand and its callback
};

std::vector<CommandSpec>& command_registry();

struct Registrar {
  Registrar(std::string name, int order, std::function<void(CLI::App&)> setup) {
    command_registry().push_back({std::move(name), order, std::move(setup)});
  }
};

}  // namespace a3s::power::cli
