// The encrypted model header: layout, round trip, range checks, nonces and AAD.
#include "model/encrypted/encrypted_format.h"

#include <gtest/gtest.h>

#include "a3s/power/error.h"

namespace a3s::power::crypto::test {
namespace {

EncryptedHeader sample() {
  EncryptedHeader h;
  h.chunk_bytes = 1u << 20;
  h.plaintext_bytes = (3u << 20) + 5;
  for (size_t i = 0; i < 32; ++i) h.plaintext_sha256[i] = static_cast<uint8_t>(i);
  for (size_t i = 0; i < 16; ++i) h.key_id[i] = static_cast<uint8_t>(0x40 + i);
  for (size_t i = 0; i < 12; ++i) h.base_nonce[i] = static_cast<uint8_t>(0x80 + i);
  for (size_t i = 0; i < 16; ++i) h.header_tag[i] = static_cast<uint8_t>(0xc0 + i);
  return h;
}

TEST(EncryptedFormat, LayoutIsAsDocumented) {
  const HeaderBytes b = sample().encode();
  EXPECT_EQ(std::string(b.begin(), b.begin() + 7), "A3SENCW");
  EXPECT_EQ(b[7], 0);
  EXPECT_EQ(b[8], 1);      // version
  EXPECT_EQ(b[12], 128);   // header size
  EXPECT_EQ(b[16], 1);     // AES-256-GCM
  EXPECT_EQ(b[22], 0x10);  // 1 MiB = 0x00100000 LE
  EXPECT_EQ(b[24], 5);
  EXPECT_EQ(b[26], 0x30);
  EXPECT_EQ(b[32], 0);
  EXPECT_EQ(b[63], 31);
  EXPECT_EQ(b[64], 0x40);
  EXPECT_EQ(b[80], 0x80);
  EXPECT_EQ(b[91], 0x8b);
  for (size_t i = 92; i < 112; ++i) EXPECT_EQ(b[i], 0);
  EXPECT_EQ(b[112], 0xc0);
  EXPECT_EQ(b[127], 0xcf);
}

TEST(EncryptedFormat, RoundTrip) {
  const EncryptedHeader h = sample();
  const HeaderBytes b = h.encode();
  const EncryptedHeader p = EncryptedHeader::parse(b, "x");
  EXPECT_EQ(p.encode(), b);
  EXPECT_EQ(p.n_chunks(), 4u);
  EXPECT_EQ(p.chunk_plain_bytes(3), 5u);
  EXPECT_EQ(p.chunk_offset(2), 128u + 2 * ((1u << 20) + 16));
  EXPECT_EQ(p.file_bytes(), 128u + (3u << 20) + 5 + 4 * 16);
}

TEST(EncryptedFormat, EmptyPlaintextHasOneEmptyChunk) {
  EncryptedHeader h = sample();
  h.plaintext_bytes = 0;
  EXPECT_EQ(h.n_chunks(), 1u);
  EXPECT_EQ(h.chunk_plain_bytes(0), 0u);
  EXPECT_EQ(h.file_bytes(), 128u + 16);
}

TEST(EncryptedFormat, NoncesDifferPerChunkAndFromTheHeader) {
  const EncryptedHeader h = sample();
  EXPECT_EQ(h.chunk_nonce(0), h.base_nonce);
  GcmNonce n1 = h.base_nonce;
  n1[11] ^= 1;
  EXPECT_EQ(h.chunk_nonce(1), n1);
  GcmNonce n256 = h.base_nonce;
  n256[10] ^= 1;
  EXPECT_EQ(h.chunk_nonce(256), n256);
  EXPECT_NE(h.header_nonce(), h.chunk_nonce(0));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(h.header_nonce()[i], h.base_nonce[i]);
}

TEST(EncryptedFormat, AadBindsDigestIndexAndLastFlag) {
  Sha256Digest d{};
  d[0] = 7;
  const auto a = chunk_aad(d, 258, true);
  EXPECT_EQ(a[0], 7);
  EXPECT_EQ(a[32], 2);
  EXPECT_EQ(a[33], 1);
  EXPECT_EQ(a[40], 1);
  EXPECT_NE(chunk_aad(d, 258, false), a);
}

std::string parse_error(HeaderBytes b) {
  try {
    EncryptedHeader::parse(b, "m.enc");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidModel);
    return e.what();
  }
  return "";
}

TEST(EncryptedFormat, ParseRejectsEachBadField) {
  const HeaderBytes good = sample().encode();
  auto with = [&](size_t off, uint8_t v) {
    HeaderBytes b = good;
    b[off] = v;
    return b;
  };
  EXPECT_NE(parse_error(with(0, 'B')).find("bad magic"), std::string::npos);
  EXPECT_NE(parse_error(with(8, 2)).find("unsupported format version 2"), std::string::npos);
  EXPECT_NE(parse_error(with(12, 64)).find("header size"), std::string::npos);
  EXPECT_NE(parse_error(with(16, 2)).find("unsupported algorithm"), std::string::npos);
  EXPECT_NE(parse_error(with(20, 1)).find("chunk size"), std::string::npos);     // not a multiple of 4096
  EXPECT_NE(parse_error(with(23, 0x10)).find("chunk size"), std::string::npos);  // > 64 MiB
  EXPECT_NE(parse_error(with(31, 1)).find("too large"), std::string::npos);      // plaintext >= 2^48
  EXPECT_NE(parse_error(with(100, 1)).find("reserved"), std::string::npos);
  EXPECT_EQ(parse_error(good), "");
  EXPECT_TRUE(has_encrypted_magic(good));
  EXPECT_FALSE(has_encrypted_magic(std::span(good).first(7)));
}

}  // namespace
}  // namespace a3s::power::crypto::test
