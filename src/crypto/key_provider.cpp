#include "crypto/key_provider.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "a3s/power/error.h"
#include "core/printable.h"
#include "crypto/secure_memory.h"

namespace a3s::power::crypto {
namespace {

constexpr size_t kMaxKeyFileBytes = 4096;

// Printable form of a path for messages (paths are not secret, but may hold control characters). A
// "path" that is a run of hex digits is most likely a key pasted where its file belongs: it is never
// echoed.
std::string shown(const std::string& path) {
  size_t hex = 0;
  for (char c : path) hex += std::isxdigit(static_cast<unsigned char>(c)) ? 1 : 0;
  if (hex >= 32 && hex + 2 >= path.size()) return "<hex text that looks like a key, not a path to a key file>";
  return printable_name(path);
}

class EnvKeyProvider final : public KeyProvider {
 public:
  explicit EnvKeyProvider(std::string var) : var_(std::move(var)) {}
  std::string describe() const override { return var_; }
  ModelKey fetch() const override {
    const char* v = std::getenv(var_.c_str());
    if (v == nullptr || *v == '\0') throw Error(codes::kModelKey, "no model key: " + var_ + " is not set");
    return ModelKey::from_hex(std::string_view(v), var_);
  }

 private:
  std::string var_;
};

class FileKeyProvider final : public KeyProvider {
 public:
  explicit FileKeyProvider(std::string path) : path_(std::move(path)) {}
  std::string describe() const override { return "key file '" + shown(path_) + "'"; }
  ModelKey fetch() const override {
    const std::string what = describe();
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
      const int err = errno;
      throw Error(codes::kModelKey, "cannot open the " + what + ": " + std::strerror(err));
    }
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      throw Error(codes::kModelKey, "the " + what + " is not a regular file");
    if (st.st_size > static_cast<off_t>(kMaxKeyFileBytes))
      throw Error(codes::kModelKey, "the " + what + " is too large to be a model key");
    LockedBuffer text(kMaxKeyFileBytes, "model key file text");
    size_t n = 0;
    while (n < text.size()) {
      const ssize_t r = ::read(fd, text.data() + n, text.size() - n);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        const int err = errno;
        throw Error(codes::kModelKey, "cannot read the " + what + ": " + std::strerror(err));
      }
      if (r == 0) break;
      n += static_cast<size_t>(r);
    }
    return ModelKey::from_hex(std::string_view(reinterpret_cast<const char*>(text.data()), n), what);
  }

 private:
  std::string path_;
};

}  // namespace

std::shared_ptr<const KeyProvider> env_key_provider(std::string variable) {
  return std::make_shared<EnvKeyProvider>(std::move(variable));
}

std::shared_ptr<const KeyProvider> file_key_provider(std::string path) {
  return std::make_shared<FileKeyProvider>(std::move(path));
}

}  // namespace a3s::power::crypto
