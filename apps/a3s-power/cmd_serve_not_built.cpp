// `a3s-power serve` in a build without the server (A3S_BUILD_SERVER=OFF, the embedded profile): the
// command is listed and fails with not_built.
#include "a3s-power/command.h"
#include "a3s-power/not_built_command.h"

namespace a3s::power::cli {

void add_serve_command(CLI::App& root) {
  add_not_built_command(root, "serve", "Serve models over the OpenAI-compatible HTTP API", "built without the server");
}

}  // namespace a3s::power::cli
