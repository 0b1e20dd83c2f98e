// a3s-power: the command-line entry point. Subcommands live in cmd_*.cpp; kCommands lists them.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "base/build_info.h"
#include "base/setting_names.h"
#include "kernels/kernels.h"

namespace a3s::power::cli {
namespace {

// Every subcommand, in the order of --help.
constexpr void (*kCommands[])(CLI::App&) = {
    add_serve_command,
    add_generate_command, add_logits_command, add_bench_command,   add_synth_command,
    add_run_command,      add_chat_command,   add_ps_command,      add_bench_cache_command, add_pull_command,
    add_list_command,     add_show_command,   add_rm_command,      add_tokenize_command,
    add_template_command,
    add_keygen_command,   add_encrypt_command, add_decrypt_command, add_sign_command,
    add_hash_command,
};

}  // namespace
}  // namespace a3s::power::cli

int main(int argc, char** argv) {
  using namespace a3s::power;
  set_setting_spelling(SettingSpelling::kCli);  // messages name the flags this user types
  CLI::App app{"A3S Power: privacy-preserving LLM inference server", "a3s-power"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text("a3s-power"));
  for (auto add : cli::kCommands) add(app);
  if (const auto warning = kernels::isa_environment_warning(std::getenv("A3S_POWER_ISA")))
    std::fprintf(stderr, "warning: %s\n", warning->c_str());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help / --version
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return exit_code_for(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return 1;
  }
  // Output that could not be written (a full disk) is an error, not a silent loss.
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) || std::cout.fail()) {
    std::fprintf(stderr, "error: cannot write to standard output%s%s\n", errno != 0 ? ": " : "",
                 errno != 0 ? std::strerror(errno) : "");
    return exit_code_for(codes::kIo);
  }
  return 0;
}
