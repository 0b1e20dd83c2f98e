// The flags every command that loads a model shares for encrypted models (generate, logits, run,
// serve, bench):
//   --model-key-file FILE        the model key (64 hex digits; default: $A3S_MODEL_KEY)
//   --decrypt file|memory|stream where the plaintext lives (default memory; stream decrypts tensor
//                                by tensor while layer streaming reads them)
// Giving either flag for a plaintext model is an error (exit 2), so a typo cannot silently load an
// unencrypted file when an encrypted one was meant.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "model/model_file.h"

namespace a3s::power::cli {

struct DecryptFlags {
  std::string key_file;
  std::string mode;  // "" → memory
};

void add_decrypt_flags(CLI::App* cmd, DecryptFlags& flags);

// The options for load_model().
weights::DecryptOptions decrypt_options(const DecryptFlags& flags);

}  // namespace a3s::power::cli
