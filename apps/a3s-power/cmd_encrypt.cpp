// `a3s-power encrypt --key-file K IN OUT [--chunk-size BYTES]`: encrypt a model file with
// AES-256-GCM into the seekable encrypted model format (docs/encrypted-weights.md).
//
// OUT appears only when complete (written next to it, then renamed). Prints one JSON line: the
// plaintext and ciphertext SHA-256, the key id, chunk size and count. Refuses an empty input and an
// input that is already encrypted (exit 2).
#include <sys/stat.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/output_file.h"
#include "base/hex.h"
#include "model/encrypted/encrypted_writer.h"
#include "model/encrypted/key_provider.h"
#include "crypto/sha256.h"
#include "model/model_file.h"

namespace a3s::power::cli {
namespace {

struct EncryptOptions {
  std::string key_file, in, out;
  uint32_t chunk_size = crypto::kDefaultChunkBytes;
};

void run_encrypt(const EncryptOptions& o) {
  struct stat st {};
  if (::stat(o.in.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
    throw Error(codes::kInvalidArgument, "the input file is empty");
  if (weights::is_encrypted_model_file(o.in))
    throw Error(codes::kInvalidArgument, "the input file is already encrypted");
  crypto::EncryptResult r;
  {
    const crypto::ModelKey key = crypto::file_key_provider(o.key_file)->fetch();
    OutputFile out(o.out);
    r = crypto::encrypt_file(o.in, out.fd(), key, o.chunk_size);
    out.commit(0644);
  }
  nlohmann::json j;
  j["plaintext_sha256"] = to_hex(r.header.plaintext_sha256);
  j["ciphertext_sha256"] = to_hex(r.ciphertext_sha256);
  j["key_id"] = to_hex(r.header.key_id);
  j["plaintext_bytes"] = r.header.plaintext_bytes;
  j["encrypted_bytes"] = r.header.file_bytes();
  j["chunk_bytes"] = r.header.chunk_bytes;
  j["chunks"] = r.header.n_chunks();
  std::cout << j.dump() << std::endl;
}

}  // namespace

void add_encrypt_command(CLI::App& root) {
  auto opts = std::make_shared<EncryptOptions>();
  CLI::App* sub = root.add_subcommand("encrypt", "Encrypt a model file (AES-256-GCM, seekable chunks)");
  sub->add_option("--key-file,-k", opts->key_file, "Model key file (64 hex digits, see keygen)")->required();
  sub->add_option("--chunk-size", opts->chunk_size,
                  "Plaintext bytes per chunk (multiple of 4096, 4 KiB..64 MiB)")
      ->capture_default_str();
  sub->add_option("in", opts->in, "Plaintext model file")->required();
  sub->add_option("out", opts->out, "Encrypted output file")->required();
  sub->callback([opts] { run_encrypt(*opts); });
}

}  // namespace a3s::power::cli
