#include "model/encrypted/encrypted_writer.h"

#include <fcntl.h>
#include <openssl/rand.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "base/syscall.h"
#include "crypto/aes_gcm.h"

namespace a3s::power::crypto {
namespace {

void write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = retry_on_eintr([&] { return ::write(fd, p, n); });
    if (w < 0) {
      const int err = errno;
      throw Error(codes::kIo, std::string("cannot write the encrypted file: ") + std::strerror(err));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// A read-only mapping of the whole input file.
struct InputMap {
  int fd = -1;
  const uint8_t* data = nullptr;
  size_t size = 0;
  ~InputMap() {
    if (data) ::munmap(const_cast<uint8_t*>(data), size);
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

EncryptResult encrypt_file(const std::string& in_path, int out_fd, const ModelKey& key,
                           uint32_t chunk_bytes) {
  if (chunk_bytes < kMinChunkBytes || chunk_bytes > kMaxChunkBytes || chunk_bytes % kMinChunkBytes != 0)
    throw Error(codes::kInvalidArgument, "the chunk size must be a multiple of 4096 in [4 KiB, 64 MiB]");
  const std::string shown = printable_name(in_path);
  InputMap in;
  in.fd = ::open(in_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (in.fd < 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot open '" + shown + "': " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(codes::kIo, "'" + shown + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) >= kMaxPlaintextBytes)
    throw Error(codes::kInvalidArgument, "'" + shown + "' is too large to encrypt (2^48 bytes or more)");
  in.size = static_cast<size_t>(st.st_size);
  if (in.size > 0) {
    void* m = ::mmap(nullptr, in.size, PROT_READ, MAP_PRIVATE, in.fd, 0);
    if (m == MAP_FAILED) {
      const int err = errno;
      throw Error(codes::kIo, "cannot map '" + shown + "': " + std::strerror(err));
    }
    in.data = static_cast<const uint8_t*>(m);
    (void)::madvise(m, in.size, MADV_SEQUENTIAL);
  }
  const std::span<const uint8_t> plain(in.data, in.size);

  EncryptedHeader h;
  h.chunk_bytes = chunk_bytes;
  h.plaintext_bytes = in.size;
  h.plaintext_sha256 = sha256(plain);
  h.key_id = key.key_id();
  if (RAND_bytes(h.base_nonce.data(), static_cast<int>(h.base_nonce.size())) != 1)
    throw Error(codes::kInternal, "the random number generator failed");

  AesGcm gcm(key, AesGcm::Direction::Seal);
  std::array<uint8_t, 0> none{};
  h.header_tag = gcm.seal(h.header_nonce(), h.header_aad(), none, none);
  const HeaderBytes hb = h.encode();
  const Sha256Digest header_digest = sha256(hb);

  Sha256 ct_hash;
  ct_hash.update(hb);
  write_all(out_fd, hb.data(), hb.size());
  std::vector<uint8_t> buf(size_t{chunk_bytes} + kGcmTagBytes);
  const uint64_t n = h.n_chunks();
  for (uint64_t i = 0; i < n; ++i) {
    const size_t len = h.chunk_plain_bytes(i);
    const auto src = plain.subspan(static_cast<size_t>(h.chunk_plain_offset(i)), len);
    const auto out = std::span(buf).first(len);
    const GcmTag tag = gcm.seal(h.chunk_nonce(i), chunk_aad(header_digest, i, h.is_last(i)), src, out);
    std::copy(tag.begin(), tag.end(), buf.begin() + static_cast<std::ptrdiff_t>(len));
    const auto record = std::span<const uint8_t>(buf).first(len + tag.size());
    ct_hash.update(record);
    write_all(out_fd, record.data(), record.size());
  }
  return EncryptResult{h, ct_hash.finish()};
}

}  // namespace a3s::power::crypto
