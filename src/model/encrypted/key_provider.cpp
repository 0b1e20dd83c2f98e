#include "model/encrypted/key_provider.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "base/small_file.h"
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
    using Status = SmallFileRead::Status;
    LockedBuffer text(kMaxKeyFileBytes, "model key file text");
    const SmallFileRead r =
        read_small_file_into(path_, std::span<char>(reinterpret_cast<char*>(text.data()), text.size()));
    switch (r.status) {
      case Status::kOk:
        break;
      case Status::kNotRegular:
        throw Error(codes::kModelKey, "the " + what + " is not a regular file");
      case Status::kTooLarge:
        throw Error(codes::kModelKey, "the " + what + " is too large to be a model key");
      case Status::kMissing:
      case Status::kError:
        throw Error(codes::kModelKey, "cannot open the " + what + ": " + std::strerror(r.error));
    }
    const size_t n = r.size;
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
