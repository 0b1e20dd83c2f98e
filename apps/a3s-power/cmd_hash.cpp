// `a3s-power hash F [--model-key-file K]`: print the pin of a model (docs/model-integrity.md),
// `sha256:<64 hex>` of its plaintext GGUF bytes — the value for model_hashes / model_hash blocks.
//
// A plaintext F is hashed as it is. An encrypted F needs its model key (--model-key-file, else
// $A3S_MODEL_KEY): every chunk is decrypted and authenticated and the plaintext digest checked
// against the header (one chunk in memory at a time), and that authenticated digest is printed.
// A key file for a plaintext F is refused (as for the other commands). Errors exit 2.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "base/hex.h"
#include "base/printable.h"
#include "model/encrypted/encrypted_reader.h"
#include "model/encrypted/key_provider.h"
#include "model/integrity/file_digest.h"
#include "model/model_file.h"

namespace a3s::power::cli {
namespace {

struct HashOptions {
  std::string model, key_file;
};

crypto::Sha256Digest encrypted_plaintext_digest(const HashOptions& o) {
  std::shared_ptr<const crypto::KeyProvider> provider;
  if (!o.key_file.empty()) {
    provider = crypto::file_key_provider(o.key_file);
  } else {
    const char* env = std::getenv(crypto::kDefaultModelKeyEnv);
    if (env == nullptr || *env == '\0') {
      throw Error(codes::kModelKey, "model file '" + printable_name(o.model) +
                                        "' is encrypted: give --model-key-file FILE or set " +
                                        crypto::kDefaultModelKeyEnv);
    }
    provider = crypto::env_key_provider();
  }
  std::unique_ptr<crypto::EncryptedReader> reader;
  {
    const crypto::ModelKey key = provider->fetch();
    reader = crypto::EncryptedReader::open(o.model, key);
  }
  return reader->decrypt_each([](std::span<const uint8_t>) {}).plaintext_sha256;
}

void run_hash(const HashOptions& o) {
  crypto::Sha256Digest digest{};
  if (weights::is_encrypted_model_file(o.model)) {
    digest = encrypted_plaintext_digest(o);
  } else {
    if (!o.key_file.empty()) {
      throw Error(codes::kInvalidArgument,
                  "model file '" + printable_name(o.model) + "' is not encrypted, but a model key was given");
    }
    digest = weights::file_sha256(o.model);
  }
  std::printf("sha256:%s\n", to_hex(digest).c_str());
}

}  // namespace

void add_hash_command(CLI::App& root) {
  auto opts = std::make_shared<HashOptions>();
  CLI::App* sub = root.add_subcommand("hash", "Print a model's pin: sha256 of its plaintext GGUF bytes");
  sub->add_option("model", opts->model, "Model file (plaintext or encrypted)")->required();
  sub->add_option("--model-key-file", opts->key_file,
                  "Key of an encrypted model (64 hex digits; default: $A3S_MODEL_KEY)");
  sub->callback([opts] { run_hash(*opts); });
}

}  // namespace a3s::power::cli
