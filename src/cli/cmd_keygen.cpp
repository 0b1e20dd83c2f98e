// `a3s-power keygen --aes256 --out FILE`: a new random model key for encrypted models.
//
// Writes 64 lowercase hex digits and a newline to FILE, created with mode 0600; an existing FILE is
// never overwritten (exit 2). Prints the key id (not the key) to stdout. The key is generated and
// formatted in locked memory and wiped afterwards.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "a3s/power/error.h"
#include "core/printable.h"
#include "cli/command.h"
#include "crypto/model_key.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"

namespace a3s::power::cli {
namespace {

struct KeygenOptions {
  bool aes256 = false;
  std::string out;
};

void run_keygen(const KeygenOptions& o) {
  if (!o.aes256) throw Error(codes::kInvalidArgument, "give the key type: --aes256 (the only one supported)");
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
  const crypto::ModelKey key = crypto::ModelKey::generate();
  crypto::LockedBuffer text(2 * crypto::kModelKeyBytes + 1, "model key text");
  key.to_hex(std::span<char, 2 * crypto::kModelKeyBytes>(reinterpret_cast<char*>(text.data()),
                                                         2 * crypto::kModelKeyBytes));
  text.data()[2 * crypto::kModelKeyBytes] = '\n';
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
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
  std::printf("wrote an AES-256 model key to %s (key id %s)\n", shown.c_str(),
              crypto::to_hex(key.key_id()).c_str());
}

const Registrar kRegistrar("keygen", 70, [](CLI::App& root) {
  auto opts = std::make_shared<KeygenOptions>();
  CLI::App* sub =
      root.add_subcommand("keygen", "Generate a random model key (64 hex digits, file mode 0600)");
  sub->add_flag("--aes256", opts->aes256, "An AES-256 key for encrypted models");
  sub->add_option("--out,-o", opts->out, "Key file to create (never overwritten)")->required();
  sub->callback([opts] { run_keygen(*opts); });
});

}  // namespace
}  // namespace a3s::power::cli
