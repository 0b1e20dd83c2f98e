// The a3s-power subcommands. Each `cmd_<name>.cpp` defines add_<name>_command, which adds the
// subcommand and its callback to the root app; main.cpp lists them in kCommands (the order of --help).
// A command's callback throws a3s::power::Error on failure; main maps the error code to the exit
// status (the code table of a3s/power/error.h: 2 bad input, 1 internal).
#pragma once

#include <CLI/CLI.hpp>

namespace a3s::power::cli {

// cmd_serve.cpp, or in a build without the server cmd_serve_not_built.cpp (`serve` says it is not built).
void add_serve_command(CLI::App& root);
void add_generate_command(CLI::App& root);
void add_logits_command(CLI::App& root);
void add_bench_command(CLI::App& root);
void add_synth_command(CLI::App& root);
void add_run_command(CLI::App& root);
void add_chat_command(CLI::App& root);
void add_ps_command(CLI::App& root);
void add_bench_cache_command(CLI::App& root);
void add_pull_command(CLI::App& root);
void add_list_command(CLI::App& root);
void add_show_command(CLI::App& root);
void add_rm_command(CLI::App& root);
void add_tokenize_command(CLI::App& root);
void add_template_command(CLI::App& root);
void add_keygen_command(CLI::App& root);
void add_encrypt_command(CLI::App& root);
void add_decrypt_command(CLI::App& root);
void add_sign_command(CLI::App& root);
void add_hash_command(CLI::App& root);

}  // namespace a3s::power::cli
