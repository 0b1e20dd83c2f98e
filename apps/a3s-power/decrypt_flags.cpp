#include "a3s-power/decrypt_flags.h"

#include "a3s/power/error.h"
#include "model/encrypted/key_provider.h"

namespace a3s::power::cli {

void add_decrypt_flags(CLI::App* cmd, DecryptFlags& flags) {
  cmd->add_option("--model-key-file", flags.key_file,
                  "Key of an encrypted model (64 hex digits; default: $A3S_MODEL_KEY)");
  cmd->add_option("--decrypt", flags.mode,
                  "Where an encrypted model's plaintext lives: memory (locked RAM, default), file (sealed "
                  "in-memory file), stream (per tensor, with --weights stream)")
      ->check(CLI::IsMember({"file", "memory", "stream"}));
}

weights::DecryptOptions decrypt_options(const DecryptFlags& flags) {
  weights::DecryptOptions o;
  if (!flags.mode.empty()) {
    const std::optional<DecryptMode> mode = parse_decrypt_mode(flags.mode);
    if (!mode) throw Error(codes::kInvalidArgument, "--decrypt must be one of file, memory, stream");
    o.mode = *mode;
  }
  if (!flags.key_file.empty()) o.key = crypto::file_key_provider(flags.key_file);
  o.required = !flags.key_file.empty() || !flags.mode.empty();
  return o;
}

}  // namespace a3s::power::cli
