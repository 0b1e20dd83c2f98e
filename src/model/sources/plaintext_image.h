// PlaintextImage: the decrypted bytes of an encrypted model, held only in memory, in one of two
// forms the engine maps like a plaintext GGUF file (gguf::File::from_memory keeps the image alive):
//
//   * sealed memfd ("file" decrypt mode): an anonymous memory file (memfd_create, MFD_CLOEXEC |
//     MFD_ALLOW_SEALING) that has no name on any filesystem. It is filled through a temporary
//     writable mapping, then sealed (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) and
//     mapped read-only and shared, exactly like a model file. Its pages are shmem: excluded from
//     core dumps (MADV_DONTDUMP) but swappable, and freed (not wiped: the write seal forbids it) at
//     unload; the kernel zeroes freed pages before reuse.
//   * locked memory ("memory" decrypt mode): an anonymous private mapping, mlocked when
//     RLIMIT_MEMLOCK allows (otherwise a debug log says so), MADV_DONTDUMP, read-only once filled,
//     and wiped (OPENSSL_cleanse) when the image is released.
//
// A plaintext model whose digest is needed (model/integrity/integrity.h) is read into a locked-memory image
// as well (read_file_image), so the bytes that were hashed are the bytes that are served.
//
// `fill` writes all `size` bytes (the decryption). If it throws, the partly filled bytes are wiped
// before the memory is released and the exception propagates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace a3s::power::weights {

class PlaintextImage {
 public:
  virtual ~PlaintextImage() = default;
  virtual std::span<const uint8_t> bytes() const = 0;
  // True when every page is locked in RAM (locked-memory images only).
  virtual bool locked() const = 0;
  // The memfd of a sealed-memfd image (-1 otherwise); valid while the image lives.
  virtual int memfd() const { return -1; }
};

using ImageFill = std::function<void(std::span<uint8_t>)>;

std::shared_ptr<PlaintextImage> make_locked_image(size_t size, const ImageFill& fill);
// `name` is the memfd's debugging name (shown as /memfd:<name> in /proc/<pid>/maps).
std::shared_ptr<PlaintextImage> make_sealed_memfd_image(size_t size, const std::string& name,
                                                        const ImageFill& fill);

// Reads the regular file at `path` into a locked-memory image and hashes the image's bytes as they
// land (chunk by chunk, after each chunk is in place): `sha256_out` is the SHA-256 of exactly the
// returned bytes. Errors: Error(codes::kIo) when the file cannot be read completely (not a regular
// file, truncated meanwhile), Error(codes::kInvalidModel) for an empty file.
std::shared_ptr<PlaintextImage> read_file_image(const std::string& path, std::array<uint8_t, 32>& sha256_out);

}  // namespace a3s::power::weights
