// `a3s-power decrypt --key-file K IN OUT [--config F]`: write the plaintext of an encrypted model to
// a file (mode 0600). For key holders outside a TEE: refused (exit 2) when the configuration
// (--config F, else $A3S_POWER_HOME/config.hcl, and A3S_POWER_TEE_MODE) has tee_mode = true,
// because there the plaintext must never reach a disk. Every chunk is authenticated before it is
// written and the plaintext SHA-256 is checked at the end; on any failure OUT is not created.
#include <cstdio>
#include <memory>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/output_file.h"
#include "config/config.h"
#include "model/encrypted/encrypted_reader.h"
#include "model/encrypted/key_provider.h"

namespace a3s::power::cli {
namespace {

struct DecryptOptions {
  std::string key_file, in, out, config_file;
};

void run_decrypt(const DecryptOptions& o) {
  config::CliOverrides co;
  if (!o.config_file.empty()) co.config_file = o.config_file;
  if (config::load(co, config::process_env()).tee_mode) {
    throw Error(codes::kRefusedInTeeMode,
                "decrypt is refused with tee_mode = true: plaintext weights must not be written to disk");
  }
  std::unique_ptr<crypto::EncryptedReader> reader;
  {
    const crypto::ModelKey key = crypto::file_key_provider(o.key_file)->fetch();
    reader = crypto::EncryptedReader::open(o.in, key);
  }
  OutputFile out(o.out);
  reader->decrypt_each([&](std::span<const uint8_t> chunk) { out.write(chunk.data(), chunk.size()); });
  out.commit(0600);
}

}  // namespace

void add_decrypt_command(CLI::App& root) {
  auto opts = std::make_shared<DecryptOptions>();
  CLI::App* sub =
      root.add_subcommand("decrypt", "Decrypt an encrypted model to a file (refused in TEE mode)");
  sub->add_option("--key-file,-k", opts->key_file, "Model key file (64 hex digits)")->required();
  sub->add_option("--config", opts->config_file, "HCL config file (checked for tee_mode)");
  sub->add_option("in", opts->in, "Encrypted model file")->required();
  sub->add_option("out", opts->out, "Plaintext output file (mode 0600)")->required();
  sub->callback([opts] { run_decrypt(*opts); });
}

}  // namespace a3s::power::cli
