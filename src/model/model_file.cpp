#include "model/model_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "a3s/power/error.h"
#include "base/setting_names.h"
#include "base/hex.h"
#include "base/printable.h"
#include "base/log.h"
#include "base/syscall.h"
#include "model/encrypted/encrypted_reader.h"
#include "model/encrypted/key_provider.h"
#include "crypto/sha256.h"
#include "model/gguf/gguf_file.h"
#include "model/encrypted/encrypted_byte_reader.h"
#include "model/sources/plaintext_image.h"

namespace a3s::power::weights {
namespace {

long long elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

bool is_encrypted_model_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return false;
  std::array<uint8_t, 8> magic{};
  const ssize_t n = retry_on_eintr([&] { return ::pread(fd, magic.data(), magic.size(), 0); });
  ::close(fd);
  return n == static_cast<ssize_t>(magic.size()) && crypto::has_encrypted_magic(magic);
}

OpenedModel open_model_file(const std::string& path, const DecryptOptions& opts, const IntegrityOptions& integrity) {
  OpenedModel out;
  const std::string shown = printable_name(path);
  if (!is_encrypted_model_file(path)) {
    if (opts.required) {
      throw Error(codes::kInvalidArgument,
                  "model file '" + shown + "' is not encrypted, but a model key or decrypt mode was given");
    }
    if (!integrity.needs_digest()) {
      out.file = gguf::File::open(path);
      return out;
    }
    // Hash the bytes that will be served: read into locked memory, never mapped from the file.
    const auto t0 = std::chrono::steady_clock::now();
    crypto::Sha256Digest digest{};
    std::shared_ptr<PlaintextImage> image = read_file_image(path, digest);
    const IntegrityResult checked = check_integrity(path, digest, integrity);  // before parsing
    out.sha256 = checked.sha256;
    out.signature_verified = checked.signature_verified;
    out.measured_image = true;
    out.locked = image->locked();
    log_debug("read model '" + shown + "' (" + std::to_string(image->bytes().size()) + " bytes) into " +
              (out.locked ? "locked" : "unlocked") + " memory and measured it in " +
              std::to_string(elapsed_ms(t0)) + " ms");
    const std::span<const uint8_t> bytes = image->bytes();
    out.file = gguf::File::from_memory(bytes, path, std::move(image));
    return out;
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<crypto::EncryptedReader> reader;
  {
    std::shared_ptr<const crypto::KeyProvider> provider = opts.key;
    if (!provider) {
      const char* env = std::getenv(crypto::kDefaultModelKeyEnv);
      if (env == nullptr || *env == '\0') {
        throw Error(codes::kModelKey, "model file '" + shown +
                                          "' is encrypted: give " + setting(Setting::kModelKeyFile, "FILE") + " or set " +
                                          crypto::kDefaultModelKeyEnv);
      }
      provider = crypto::env_key_provider();
    }
    // The raw key lives only in this scope: the reader keeps the AES key schedule.
    const crypto::ModelKey key = provider->fetch();
    reader = crypto::EncryptedReader::open(path, key);
    out.key_id = to_hex(key.key_id());
  }
  const crypto::EncryptedHeader& h = reader->header();
  if (h.plaintext_bytes > SIZE_MAX)
    throw Error(codes::kInvalidModel, "encrypted model is too large for this machine");
  const auto size = static_cast<size_t>(h.plaintext_bytes);
  out.encrypted = true;
  out.mode = opts.mode;
  out.encrypted_bytes = h.file_bytes();
  if (opts.mode == DecryptMode::Stream) {
    // Authenticate every chunk and check the plaintext digest once, a chunk at a time.
    const crypto::EncryptedDigests digests = reader->decrypt_each([](std::span<const uint8_t>) {});
    out.plaintext_sha256 = to_hex(digests.plaintext_sha256);
    out.ciphertext_sha256 = to_hex(digests.ciphertext_sha256);
    const IntegrityResult checked = check_integrity(path, digests.plaintext_sha256, integrity);
    out.sha256 = checked.sha256;
    out.signature_verified = checked.signature_verified;
    auto bytes = std::make_unique<EncryptedByteReader>(std::move(reader));
    EncryptedByteReader* source = bytes.get();
    out.file = gguf::File::from_prefix([source](uint64_t off, std::span<uint8_t> dst) { source->read(off, dst); },
                                       size, path);
    out.stream_reader = std::move(bytes);
    log_debug("authenticated encrypted model '" + shown + "' (" + std::to_string(size) + " bytes) for stream " +
              "decryption in " + std::to_string(elapsed_ms(t0)) + " ms");
    return out;
  }
  crypto::EncryptedDigests digests;
  auto fill = [&](std::span<uint8_t> dst) { digests = reader->decrypt_all(dst); };
  std::shared_ptr<PlaintextImage> image = opts.mode == DecryptMode::File
                                              ? make_sealed_memfd_image(size, "a3s-power-model", fill)
                                              : make_locked_image(size, fill);
  reader.reset();  // closes the file, frees (and cleanses) the key schedule

  out.plaintext_sha256 = to_hex(digests.plaintext_sha256);
  out.ciphertext_sha256 = to_hex(digests.ciphertext_sha256);
  const IntegrityResult checked = check_integrity(path, digests.plaintext_sha256, integrity);  // before parsing
  out.sha256 = checked.sha256;
  out.signature_verified = checked.signature_verified;
  out.locked = image->locked();
  const auto ms = elapsed_ms(t0);
  log_debug("decrypted model '" + shown + "' (" + std::to_string(size) + " bytes) into " +
            (opts.mode == DecryptMode::File ? std::string("a sealed memory file")
                                            : std::string(out.locked ? "locked memory" : "unlocked memory")) +
            " in " + std::to_string(ms) + " ms");
  const std::span<const uint8_t> bytes = image->bytes();
  out.file = gguf::File::from_memory(bytes, path, std::move(image));
  return out;
}

}  // namespace a3s::power::weights
