#include "model/encrypted/encrypted_format.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "a3s/power/error.h"

namespace a3s::power::crypto {
namespace {

constexpr std::string_view kHeaderLabel = "a3s-power/enc-header/v1";
static_assert(kHeaderLabel.size() == 23);

void put_le(uint8_t* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

GcmNonce nonce_for(const GcmNonce& base, uint64_t counter) {
  GcmNonce n = base;
  for (int i = 0; i < 8; ++i) n[4 + i] ^= static_cast<uint8_t>(counter >> (8 * (7 - i)));
  return n;
}

}  // namespace

bool has_encrypted_magic(std::span<const uint8_t> prefix) {
  return prefix.size() >= kEncryptedMagic.size() &&
         std::equal(kEncryptedMagic.begin(), kEncryptedMagic.end(), prefix.begin());
}

uint64_t EncryptedHeader::n_chunks() const {
  const uint64_t n = (plaintext_bytes + chunk_bytes - 1) / chunk_bytes;
  return n == 0 ? 1 : n;
}

uint64_t EncryptedHeader::file_bytes() const {
  return kEncryptedHeaderBytes + plaintext_bytes + kGcmTagBytes * n_chunks();
}

uint64_t EncryptedHeader::chunk_offset(uint64_t i) const {
  return kEncryptedHeaderBytes + i * (uint64_t{chunk_bytes} + kGcmTagBytes);
}

uint64_t EncryptedHeader::chunk_plain_offset(uint64_t i) const {
  return i * chunk_bytes;
}

size_t EncryptedHeader::chunk_plain_bytes(uint64_t i) const {
  const uint64_t start = chunk_plain_offset(i);
  if (start >= plaintext_bytes) return 0;
  return static_cast<size_t>(std::min<uint64_t>(chunk_bytes, plaintext_bytes - start));
}

GcmNonce EncryptedHeader::chunk_nonce(uint64_t i) const {
  return nonce_for(base_nonce, i);
}

GcmNonce EncryptedHeader::header_nonce() const {
  return nonce_for(base_nonce, ~uint64_t{0});
}

HeaderBytes EncryptedHeader::encode() const {
  HeaderBytes b{};
  std::copy(kEncryptedMagic.begin(), kEncryptedMagic.end(), b.begin());
  put_le(&b[8], kEncryptedVersion, 4);
  put_le(&b[12], kEncryptedHeaderBytes, 4);
  put_le(&b[16], kAlgorithmAes256Gcm, 4);
  put_le(&b[20], chunk_bytes, 4);
  put_le(&b[24], plaintext_bytes, 8);
  std::copy(plaintext_sha256.begin(), plaintext_sha256.end(), b.begin() + 32);
  std::copy(key_id.begin(), key_id.end(), b.begin() + 64);
  std::copy(base_nonce.begin(), base_nonce.end(), b.begin() + 80);
  std::copy(header_tag.begin(), header_tag.end(), b.begin() + kHeaderTagOffset);
  return b;
}

std::array<uint8_t, 23 + kHeaderTagOffset> EncryptedHeader::header_aad() const {
  std::array<uint8_t, 23 + kHeaderTagOffset> aad{};
  std::memcpy(aad.data(), kHeaderLabel.data(), kHeaderLabel.size());
  const HeaderBytes b = encode();
  std::copy(b.begin(), b.begin() + kHeaderTagOffset, aad.begin() + kHeaderLabel.size());
  return aad;
}

EncryptedHeader EncryptedHeader::parse(std::span<const uint8_t, kEncryptedHeaderBytes> b,
                                       const std::string& name) {
  auto bad = [&](const std::string& what) -> Error {
    return Error(codes::kInvalidModel, "invalid encrypted model '" + name + "': " + what);
  };
  if (!has_encrypted_magic(b)) throw bad("bad magic (not an encrypted model)");
  const uint64_t version = get_le(&b[8], 4);
  if (version != kEncryptedVersion) throw bad("unsupported format version " + std::to_string(version));
  if (get_le(&b[12], 4) != kEncryptedHeaderBytes) throw bad("unexpected header size");
  if (get_le(&b[16], 4) != kAlgorithmAes256Gcm)
    throw bad("unsupported algorithm " + std::to_string(get_le(&b[16], 4)));
  EncryptedHeader h;
  h.chunk_bytes = static_cast<uint32_t>(get_le(&b[20], 4));
  if (h.chunk_bytes < kMinChunkBytes || h.chunk_bytes > kMaxChunkBytes || h.chunk_bytes % kMinChunkBytes != 0)
    throw bad("chunk size " + std::to_string(h.chunk_bytes) +
              " is not a multiple of 4096 in [4 KiB, 64 MiB]");
  h.plaintext_bytes = get_le(&b[24], 8);
  if (h.plaintext_bytes >= kMaxPlaintextBytes) throw bad("plaintext size is too large");
  std::copy(b.begin() + 32, b.begin() + 64, h.plaintext_sha256.begin());
  std::copy(b.begin() + 64, b.begin() + 80, h.key_id.begin());
  std::copy(b.begin() + 80, b.begin() + 92, h.base_nonce.begin());
  if (std::any_of(b.begin() + 92, b.begin() + kHeaderTagOffset, [](uint8_t x) { return x != 0; }))
    throw bad("reserved header bytes are not zero");
  std::copy(b.begin() + kHeaderTagOffset, b.end(), h.header_tag.begin());
  return h;
}

std::array<uint8_t, kChunkAadBytes> chunk_aad(const Sha256Digest& header_digest, uint64_t i, bool last) {
  std::array<uint8_t, kChunkAadBytes> aad{};
  std::copy(header_digest.begin(), header_digest.end(), aad.begin());
  put_le(&aad[32], i, 8);
  aad[40] = last ? 1 : 0;
  return aad;
}

}  // namespace a3s::power::crypto
