#include "model/encrypted/encrypted_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "base/printable.h"
#include "base/syscall.h"

namespace a3s::power::crypto {
namespace {

// Reads exactly the iovecs' total at `offset`; returns the bytes read (short only at end of file).
size_t preadv_full(int fd, iovec* iov, int n_iov, uint64_t offset, const std::string& name) {
  size_t total = 0;
  while (n_iov > 0) {
    const ssize_t r = retry_on_eintr([&] { return ::preadv(fd, iov, n_iov, static_cast<off_t>(offset + total)); });
    if (r < 0) {
      const int err = errno;
      throw Error(codes::kIo, "cannot read encrypted model '" + name + "': " + std::strerror(err));
    }
    if (r == 0) break;
    size_t got = static_cast<size_t>(r);
    total += got;
    while (n_iov > 0 && got >= iov->iov_len) {
      got -= iov->iov_len;
      ++iov;
      --n_iov;
    }
    if (n_iov > 0) {
      iov->iov_base = static_cast<uint8_t*>(iov->iov_base) + got;
      iov->iov_len -= got;
    }
  }
  return total;
}

int dup_cloexec(int fd) {
  const int d = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (d < 0) {
    const int err = errno;
    throw Error(codes::kIo, std::string("cannot duplicate the model file descriptor: ") + std::strerror(err));
  }
  return d;
}

}  // namespace

std::unique_ptr<EncryptedReader> EncryptedReader::open(const std::string& path, const ModelKey& key) {
  const std::string shown = printable_name(path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot open model file '" + shown + "': " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Error(codes::kIo, "model path '" + shown + "' is not a regular file");
  }
  try {
    return std::unique_ptr<EncryptedReader>(new EncryptedReader(fd, shown, key));
  } catch (...) {
    ::close(fd);
    throw;
  }
}

std::unique_ptr<EncryptedReader> EncryptedReader::from_fd(int fd, const std::string& name,
                                                          const ModelKey& key) {
  const int d = dup_cloexec(fd);
  try {
    return std::unique_ptr<EncryptedReader>(new EncryptedReader(d, printable_name(name), key));
  } catch (...) {
    ::close(d);
    throw;
  }
}

EncryptedReader::EncryptedReader(int fd, std::string name, const ModelKey& key)
    : name_(std::move(name)), gcm_(key, AesGcm::Direction::Open) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot stat encrypted model '" + name_ + "': " + std::strerror(err));
  }
  const auto file_bytes = static_cast<uint64_t>(st.st_size);
  iovec iov{header_bytes_.data(), header_bytes_.size()};
  const size_t got = preadv_full(fd, &iov, 1, 0, name_);
  if (got < kEncryptedMagic.size() || !has_encrypted_magic(std::span(header_bytes_).first(got)))
    throw Error(codes::kInvalidModel, "'" + name_ + "' is not an encrypted model (bad magic)");
  if (got < header_bytes_.size()) {
    throw Error(codes::kDecryptionFailed, "encrypted model '" + name_ + "' is truncated inside its header (" +
                                              std::to_string(got) + " of 128 bytes)");
  }
  header_ = EncryptedHeader::parse(header_bytes_, name_);
  if (header_.key_id != key.key_id()) {
    throw Error(codes::kModelKeyMismatch, "the model key does not match encrypted model '" + name_ +
                                              "' (the file was sealed with key id " + to_hex(header_.key_id) +
                                              "; the given key has another id)");
  }
  const auto aad = header_.header_aad();
  std::array<uint8_t, 0> none{};
  if (!gcm_.open(header_.header_nonce(), aad, none, none, header_.header_tag)) {
    throw Error(codes::kDecryptionFailed,
                "encrypted model '" + name_ + "': the header failed authentication (it was modified)");
  }
  if (file_bytes < header_.file_bytes()) {
    throw Error(codes::kDecryptionFailed, "encrypted model '" + name_ + "' is truncated (" +
                                              std::to_string(file_bytes) + " bytes; the header says " +
                                              std::to_string(header_.file_bytes()) + ")");
  }
  if (file_bytes > header_.file_bytes()) {
    throw Error(codes::kDecryptionFailed, "encrypted model '" + name_ + "' has " +
                                              std::to_string(file_bytes - header_.file_bytes()) +
                                              " bytes after its last chunk");
  }
  header_digest_ = sha256(header_bytes_);
  fd_ = fd;  // owned from here on
}

EncryptedReader::~EncryptedReader() {
  if (fd_ >= 0) ::close(fd_);
}

void EncryptedReader::chunk_failed(uint64_t i) const {
  const uint64_t n = header_.n_chunks();
  throw Error(codes::kDecryptionFailed,
              "encrypted model '" + name_ + "': chunk " + std::to_string(i) + " of " + std::to_string(n) +
                  (i + 1 == n ? " (the last)" : "") +
                  " failed authentication (modified, moved, or taken from another file)");
}

void EncryptedReader::open_chunk(uint64_t i, std::span<uint8_t> dst, Sha256* ciphertext_hash) {
  const size_t n = header_.chunk_plain_bytes(i);
  if (dst.size() != n) throw Error(codes::kInternal, "chunk buffer size mismatch");
  GcmTag tag{};
  iovec iov[2] = {{dst.data(), n}, {tag.data(), tag.size()}};
  const size_t got = preadv_full(fd_, iov, 2, header_.chunk_offset(i), name_);
  if (got != n + tag.size()) {
    wipe(dst.data(), dst.size());
    throw Error(codes::kDecryptionFailed, "encrypted model '" + name_ + "' was truncated while it was read");
  }
  if (ciphertext_hash) {
    ciphertext_hash->update(dst);
    ciphertext_hash->update(tag);
  }
  const auto aad = chunk_aad(header_digest_, i, header_.is_last(i));
  if (!gcm_.open(header_.chunk_nonce(i), aad, dst, dst, tag)) {
    wipe(dst.data(), dst.size());
    chunk_failed(i);
  }
}

void EncryptedReader::read(uint64_t offset, size_t len, uint8_t* dst) {
  if (offset > size() || len > size() - offset)
    throw Error(codes::kInvalidArgument, "read range is outside the plaintext of '" + name_ + "'");
  if (len == 0) return;
  const uint64_t cs = header_.chunk_bytes;
  const uint64_t first = offset / cs;
  const uint64_t last = (offset + len - 1) / cs;
  size_t written = 0;
  try {
    for (uint64_t i = first; i <= last; ++i) {
      const uint64_t c0 = header_.chunk_plain_offset(i);
      const size_t cn = header_.chunk_plain_bytes(i);
      const uint64_t a = std::max(offset, c0);
      const uint64_t b = std::min(offset + len, c0 + cn);
      uint8_t* out = dst + (a - offset);
      if (a == c0 && b == c0 + cn) {
        open_chunk(i, std::span(out, cn), nullptr);  // whole chunk: in place
      } else {
        if (scratch_.size() == 0) scratch_ = LockedBuffer(header_.chunk_bytes, "decryption scratch chunk");
        std::span<uint8_t> s = scratch_.span().first(cn);
        open_chunk(i, s, nullptr);
        std::memcpy(out, s.data() + (a - c0), static_cast<size_t>(b - a));
        wipe(s.data(), s.size());
      }
      written = static_cast<size_t>(b - offset);
    }
  } catch (...) {
    wipe(dst, written);
    throw;
  }
}

EncryptedDigests EncryptedReader::decrypt_all(std::span<uint8_t> dst) {
  if (dst.size() != size())
    throw Error(codes::kInternal, "decrypt_all: buffer size differs from the plaintext size");
  try {
    Sha256 pt_hash, ct_hash;
    ct_hash.update(header_bytes_);
    const uint64_t n = header_.n_chunks();
    for (uint64_t i = 0; i < n; ++i) {
      std::span<uint8_t> chunk =
          dst.subspan(static_cast<size_t>(header_.chunk_plain_offset(i)), header_.chunk_plain_bytes(i));
      open_chunk(i, chunk, &ct_hash);
      pt_hash.update(chunk);
    }
    EncryptedDigests d{pt_hash.finish(), ct_hash.finish()};
    check_plaintext_digest(d);
    return d;
  } catch (...) {
    wipe(dst.data(), dst.size());
    throw;
  }
}

void EncryptedReader::check_plaintext_digest(const EncryptedDigests& d) const {
  if (d.plaintext_sha256 != header_.plaintext_sha256) {
    throw Error(codes::kIntegrity,
                "encrypted model '" + name_ + "': the decrypted bytes do not match the plaintext SHA-256 in the header");
  }
}

EncryptedDigests EncryptedReader::decrypt_each(const std::function<void(std::span<const uint8_t>)>& sink) {
  if (scratch_.size() == 0) scratch_ = LockedBuffer(header_.chunk_bytes, "decryption scratch chunk");
  Sha256 pt_hash, ct_hash;
  ct_hash.update(header_bytes_);
  const uint64_t n = header_.n_chunks();
  for (uint64_t i = 0; i < n; ++i) {
    std::span<uint8_t> s = scratch_.span().first(header_.chunk_plain_bytes(i));
    open_chunk(i, s, &ct_hash);
    pt_hash.update(s);
    try {
      sink(s);
    } catch (...) {
      wipe(s.data(), s.size());
      throw;
    }
    wipe(s.data(), s.size());
  }
  EncryptedDigests d{pt_hash.finish(), ct_hash.finish()};
  check_plaintext_digest(d);
  return d;
}

}  // namespace a3s::power::crypto
