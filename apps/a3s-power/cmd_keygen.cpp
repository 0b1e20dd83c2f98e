// `a3s-power keygen --aes256 --out FILE` (or `--type aes256`): a new random model key for encrypted
// models. Prints the key id (not the key) to stdout.
// `a3s-power keygen --type ed25519 --out FILE`: a new model signing key (docs/model-integrity.md).
// FILE gets the private key (the 32-byte Ed25519 seed); stdout gets the public key (64 hex digits,
// the value of model_signing_key) and nothing else.
//
// Either way FILE holds 64 lowercase hex digits and a newline, is created with mode 0600, and an
// existing FILE is never overwritten (exit 2). One key type must be named. Keys are generated and
// formatted in locked memory and wiped afterwards.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "base/printable.h"
#include "a3s-power/command.h"
#include "base/syscall.h"
#include "crypto/ed25519.h"
#include "crypto/model_key.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"

namespace a3s::power::cli {
namespace {

struct KeygenOptions {
  bool aes256 = false;
  std::string type;  // "aes256" | "ed25519" | "" (then --aes256 is required)
  std::string out;
};

void run_keygen(const KeygenOptions& o) {
  if (o.aes256 && !o.type.empty() && o.type != "aes256")
    throw Error(codes::kInvalidArgument, "--aes256 and --type " + o.type + " contradict each other");
  const bool ed25519 = o.type == "ed25519";
  if (!o.aes256 && o.type.empty())
    throw Error(codes::kInvalidArgument, "give the key type: --aes256 (model key) or --type ed25519 (signing key)");
  if (o.out.empty()) throw Error(codes::kInvalidArgument, "--out must not be empty");
  const std::string shown = printable_name(o.out);
  const int fd = ::open(o.out.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    const int err = errno;
    if (err == EEXIST)
      throw Error(codes::kInvalidArgument, "refusing to overwrite the existing file '" + shown + "'");
    throw Error(codes::kIo, "cannot create '" + shown + "': " + std::strerror(err));
  }
  bool ok = false;
  struct Cleanup {
    int fd;
    const std::string& path;
    bool& ok;
    ~Cleanup() {
      ::close(fd);
      if (!ok) ::unlink(path.c_str());
    }
  } cleanup{fd, o.out, ok};

  // The umask may have cleared bits of 0600 (never added any); make it exactly 0600.
  if (::fchmod(fd, 0600) != 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot set the mode of '" + shown + "': " + std::strerror(err));
  }
  crypto::LockedBuffer text(2 * crypto::kModelKeyBytes + 1, "key text");
  std::optional<crypto::ModelKey> key;
  crypto::Ed25519PublicKey public_key{};
  if (ed25519) {
    crypto::LockedBuffer seed(crypto::kEd25519KeyBytes, "signing key");
    const auto seed_bytes = std::span<uint8_t, crypto::kEd25519KeyBytes>(seed.data(), crypto::kEd25519KeyBytes);
    crypto::ed25519_random_seed(seed_bytes);
    public_key = crypto::ed25519_public_key(seed_bytes);
    to_hex(std::span<const uint8_t>(seed.data(), crypto::kEd25519KeyBytes),
           std::span<char>(reinterpret_cast<char*>(text.data()), 2 * crypto::kEd25519KeyBytes));
  } else {
    key.emplace(crypto::ModelKey::generate());
    key->to_hex(std::span<char, 2 * crypto::kModelKeyBytes>(reinterpret_cast<char*>(text.data()),
                                                            2 * crypto::kModelKeyBytes));
  }
  text.data()[2 * crypto::kModelKeyBytes] = '\n';
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = retry_on_eintr([&] { return ::write(fd, text.data() + done, text.size() - done); });
    if (w < 0) {
      const int err = errno;
      throw Error(codes::kIo, "cannot write '" + shown + "': " + std::strerror(err));
    }
    done += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot write '" + shown + "': " + std::strerror(err));
  }
  ok = true;
  if (ed25519) {
    // The public key only: stdout is the value for model_signing_key.
    std::printf("%s\n", to_hex(public_key).c_str());
    return;
  }
  std::printf("wrote an AES-256 model key to %s (key id %s)\n", shown.c_str(),
              to_hex(key->key_id()).c_str());
}

}  // namespace

void add_keygen_command(CLI::App& root) {
  auto opts = std::make_shared<KeygenOptions>();
  CLI::App* sub = root.add_subcommand(
      "keygen", "Generate a random model key or model signing key (64 hex digits, file mode 0600)");
  sub->add_flag("--aes256", opts->aes256, "An AES-256 key for encrypted models (same as --type aes256)");
  sub->add_option("--type", opts->type,
                  "aes256 (model key) or ed25519 (signing key: FILE gets the private key, stdout the public key)")
      ->check(CLI::IsMember({"aes256", "ed25519"}));
  sub->add_option("--out,-o", opts->out, "Key file to create (never overwritten)")->required();
  sub->callback([opts] { run_keygen(*opts); });
}

}  // namespace a3s::power::cli
