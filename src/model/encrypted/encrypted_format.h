// The encrypted model file format, version 1 (docs/encrypted-weights.md has the same layout with
// rationale). All integers are little-endian.
//
//   offset size  field
//   0      8     magic "A3SENCW\0"
//   8      4     version (1)
//   12     4     header size in bytes (128)
//   16     4     algorithm (1 = AES-256-GCM)
//   20     4     chunk size: plaintext bytes per chunk, a multiple of 4096 in [4 KiB, 64 MiB]
//   24     8     plaintext size in bytes (< 2^48)
//   32     32    SHA-256 of the whole plaintext
//   64     16    key id (model_key.h)
//   80     12    base nonce (random per file)
//   92     20    reserved, zero
//   112    16    header tag: AES-256-GCM tag over an empty message, nonce = nonce(2^64-1), AAD =
//                "a3s-power/enc-header/v1" || header bytes 0..111
//   128          chunks 0 … n-1, n = max(1, ceil(plaintext size / chunk size)); chunk i is its
//                ciphertext (chunk size bytes, the last one the remainder, possibly 0) followed by
//                its 16-byte tag, at offset 128 + i * (chunk size + 16).
//
// Chunk i is sealed with nonce(i) = base nonce XOR (0^32 || big-endian u64 i) and AAD =
// SHA-256(header bytes 0..127) || little-endian u64 i || u8 last (1 for chunk n-1, else 0): a chunk
// authenticates only at its own index, in its own file, with the last-chunk flag the header
// implies — reordering, dropping, truncating, extending or splicing chunks between files all fail.
// The file size must be exactly 128 + plaintext size + 16 n.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "crypto/aes_gcm.h"
#include "crypto/model_key.h"
#include "crypto/sha256.h"

namespace a3s::power::crypto {

inline constexpr std::array<uint8_t, 8> kEncryptedMagic = {'A', '3', 'S', 'E', 'N', 'C', 'W', 0};
inline constexpr uint32_t kEncryptedVersion = 1;
inline constexpr size_t kEncryptedHeaderBytes = 128;
inline constexpr size_t kHeaderTagOffset = 112;
inline constexpr uint32_t kAlgorithmAes256Gcm = 1;
inline constexpr uint32_t kDefaultChunkBytes = 1u << 20;
inline constexpr uint32_t kMinChunkBytes = 4096;
inline constexpr uint32_t kMaxChunkBytes = 64u << 20;
inline constexpr uint64_t kMaxPlaintextBytes = uint64_t{1} << 48;
inline constexpr size_t kChunkAadBytes = 32 + 8 + 1;

using HeaderBytes = std::array<uint8_t, kEncryptedHeaderBytes>;

// True when `prefix` (the first bytes of a file) starts with the encrypted-model magic.
bool has_encrypted_magic(std::span<const uint8_t> prefix);

struct EncryptedHeader {
  uint32_t chunk_bytes = kDefaultChunkBytes;
  uint64_t plaintext_bytes = 0;
  Sha256Digest plaintext_sha256{};
  KeyId key_id{};
  GcmNonce base_nonce{};
  GcmTag header_tag{};

  uint64_t n_chunks() const;
  uint64_t file_bytes() const;                    // exact size of the encrypted file
  uint64_t chunk_offset(uint64_t i) const;        // file offset of chunk i's ciphertext
  uint64_t chunk_plain_offset(uint64_t i) const;  // plaintext offset of chunk i
  size_t chunk_plain_bytes(uint64_t i) const;     // plaintext (= ciphertext) bytes of chunk i
  bool is_last(uint64_t i) const { return i + 1 == n_chunks(); }

  GcmNonce chunk_nonce(uint64_t i) const;
  GcmNonce header_nonce() const;

  // Serialises the header; the tag field holds `header_tag` as it is.
  HeaderBytes encode() const;
  // The header tag's AAD: label || bytes 0..111 of `encode()`.
  std::array<uint8_t, 23 + kHeaderTagOffset> header_aad() const;

  // Parses and range-checks a header (magic, version, size, algorithm, chunk size, plaintext size,
  // reserved bytes). Does not authenticate it. Throws Error(codes::kInvalidModel) naming `name` and the
  // field.
  static EncryptedHeader parse(std::span<const uint8_t, kEncryptedHeaderBytes> bytes,
                               const std::string& name);
};

// AAD of chunk i: SHA-256 of the encoded header || u64 LE i || last flag.
std::array<uint8_t, kChunkAadBytes> chunk_aad(const Sha256Digest& header_digest, uint64_t i, bool last);

}  // namespace a3s::power::crypto
