#include "a3s-power/not_built_command.h"

#include "base/build_info.h"

namespace a3s::power::cli {

void add_not_built_command(CLI::App& root, const std::string& name, const std::string& description,
                           const std::string& reason) {
  CLI::App* sub = root.add_subcommand(name, description + " [not built into this profile]");
  sub->prefix_command();  // every argument is accepted (and ignored): the answer is the same
  sub->callback([name, reason] { throw not_built("a3s-power " + name, reason); });
}

}  // namespace a3s::power::cli
