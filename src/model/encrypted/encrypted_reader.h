// EncryptedReader: random access to the plaintext of an encrypted model file (encrypted_format.h).
//
// Opening reads and checks the 128-byte header: its format (Error "invalid_model"), the key id
// against the given key ("model_key_mismatch"), the header tag ("decryption_failed") and the exact
// file size implied by the header ("decryption_failed": truncated or extended). The reader keeps
// the file descriptor and an AES-256-GCM key schedule; the ModelKey can be dropped after open().
//
// `read(offset, len, dst)` decrypts exactly the chunks that cover plaintext bytes
// [offset, offset+len) with pread(2), authenticating each: a chunk that fails is reported as
// Error(codes::kDecryptionFailed) naming its index, and every byte already written to `dst` by that call
// is wiped first. Whole chunks are decrypted in place in `dst` (no copy); partial chunks at the ends
// of the range go through one chunk-sized locked scratch buffer that is wiped after use. This is the
// primitive a layer-streaming weight source uses: a tensor's byte range maps to its chunks.
//
// `decrypt_all(dst)` decrypts the whole file in order, checks the plaintext SHA-256 against the
// header (Error "integrity_error") and returns both the plaintext and the ciphertext (whole file)
// SHA-256; on any failure all of `dst` is wiped before the error is thrown.
//
// Errors reading the file: Error(codes::kIo). A reader is not thread-safe; open one per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "crypto/aes_gcm.h"
#include "model/encrypted/encrypted_format.h"
#include "crypto/model_key.h"
#include "crypto/secure_memory.h"
#include "crypto/sha256.h"

namespace a3s::power::crypto {

struct EncryptedDigests {
  Sha256Digest plaintext_sha256{};   // of the decrypted bytes (equal to the header's)
  Sha256Digest ciphertext_sha256{};  // of the whole encrypted file, header included
};

class EncryptedReader {
 public:
  // Opens a regular file read-only.
  static std::unique_ptr<EncryptedReader> open(const std::string& path, const ModelKey& key);
  // Uses a duplicate of `fd` (the caller keeps its own). `name` appears in error messages.
  static std::unique_ptr<EncryptedReader> from_fd(int fd, const std::string& name, const ModelKey& key);
  ~EncryptedReader();
  EncryptedReader(const EncryptedReader&) = delete;
  EncryptedReader& operator=(const EncryptedReader&) = delete;

  const EncryptedHeader& header() const { return header_; }
  uint64_t size() const { return header_.plaintext_bytes; }  // plaintext bytes
  const std::string& name() const { return name_; }

  // Decrypts plaintext bytes [offset, offset+len) into dst[0, len). Throws Error(codes::kInvalidArgument)
  // when the range is outside the plaintext.
  void read(uint64_t offset, size_t len, uint8_t* dst);

  // Decrypts everything into `dst` (dst.size() must equal size()); see above.
  EncryptedDigests decrypt_all(std::span<uint8_t> dst);

  // Decrypts chunk by chunk in order through a locked scratch buffer, handing each authenticated
  // chunk to `sink` (the span is wiped after the call). Checks the plaintext SHA-256 at the end
  // (Error "integrity_error"), so a sink must treat what it received as unverified until this
  // returns.
  EncryptedDigests decrypt_each(const std::function<void(std::span<const uint8_t>)>& sink);

 private:
  EncryptedReader(int fd, std::string name, const ModelKey& key);
  // Reads chunk i's ciphertext into `dst` (chunk_plain_bytes(i) bytes) and its tag, optionally
  // hashes what was read, and decrypts in place. On failure wipes `dst` and throws.
  void open_chunk(uint64_t i, std::span<uint8_t> dst, Sha256* ciphertext_hash);
  [[noreturn]] void chunk_failed(uint64_t i) const;
  // Error(codes::kIntegrity) unless the plaintext digest equals the header's.
  void check_plaintext_digest(const EncryptedDigests& d) const;

  int fd_ = -1;
  std::string name_;
  EncryptedHeader header_;
  HeaderBytes header_bytes_{};
  Sha256Digest header_digest_{};
  AesGcm gcm_;
  LockedBuffer scratch_;  // one chunk, allocated on first partial read
};

}  // namespace a3s::power::crypto
