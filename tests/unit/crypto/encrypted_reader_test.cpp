// EncryptedReader: whole-file and seekable decryption, and every way a file can be wrong — wrong
// key, a flipped bit anywhere, truncation, extension, swapped chunks, a chunk from another file, a
// header that lies about the plaintext digest — each a specific error, with the plaintext wiped.
#include "model/encrypted/encrypted_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>

#include "a3s/power/error.h"
#include "crypto/aes_gcm.h"
#include "crypto_test_util.h"

namespace a3s::power::crypto::test {
namespace {

constexpr uint32_t kChunk = 4096;
constexpr size_t kRecord = kChunk + kGcmTagBytes;

struct Failure {
  std::string code, message;
};

Failure failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {};
}

// A plaintext of 3.5 chunks, encrypted with key A into dir/m.enc.
struct Fixture {
  TempDir dir;
  std::vector<uint8_t> plain = random_bytes(3 * kChunk + kChunk / 2, 1);
  std::string enc = dir.file("m.enc");
  Fixture() {
    write_bytes(dir.file("m.bin"), plain);
    encrypt_to(dir.file("m.bin"), enc, key_a(), kChunk);
  }
  std::vector<uint8_t> bytes() const { return read_bytes(enc); }
  // Writes `b` as a variant file and returns its path.
  std::string variant(const std::vector<uint8_t>& b, const std::string& name = "v.enc") const {
    write_bytes(dir.file(name), b);
    return dir.file(name);
  }
};

// Opens `path` with key A and decrypts everything; returns the failure (empty code: success).
Failure decrypt_failure(const std::string& path, std::vector<uint8_t>* out = nullptr) {
  return failure_of([&] {
    auto r = EncryptedReader::open(path, key_a());
    std::vector<uint8_t> dst(r->size(), 0xAA);
    struct Keep {
      std::vector<uint8_t>& d;
      std::vector<uint8_t>* out;
      ~Keep() {
        if (out) *out = d;
      }
    } keep{dst, out};
    r->decrypt_all(dst);
  });
}

bool all_zero(const std::vector<uint8_t>& v) {
  return std::all_of(v.begin(), v.end(), [](uint8_t b) { return b == 0; });
}

TEST(EncryptedReader, RoundTripsEverySize) {
  TempDir dir;
  for (size_t n : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{3 * 4096 + 100}}) {
    const auto plain = random_bytes(n, static_cast<uint32_t>(n));
    write_bytes(dir.file("p"), plain);
    const EncryptResult er = encrypt_to(dir.file("p"), dir.file("e"), key_a());
    const auto file = read_bytes(dir.file("e"));
    EXPECT_EQ(file.size(), er.header.file_bytes());
    EXPECT_EQ(er.ciphertext_sha256, sha256(file));
    EXPECT_EQ(er.header.plaintext_sha256, sha256(plain));
    auto r = EncryptedReader::open(dir.file("e"), key_a());
    ASSERT_EQ(r->size(), n);
    std::vector<uint8_t> dst(n);
    const EncryptedDigests d = r->decrypt_all(dst);
    EXPECT_EQ(dst, plain) << n;
    EXPECT_EQ(d.plaintext_sha256, sha256(plain));
    EXPECT_EQ(d.ciphertext_sha256, sha256(file));

    std::vector<uint8_t> each;
    r->decrypt_each([&](std::span<const uint8_t> c) { each.insert(each.end(), c.begin(), c.end()); });
    EXPECT_EQ(each, plain);
  }
}

TEST(EncryptedReader, EncryptingTwiceGivesDifferentFiles) {
  Fixture f;
  encrypt_to(f.dir.file("m.bin"), f.dir.file("again.enc"), key_a(), kChunk);
  const auto a = f.bytes(), b = read_bytes(f.dir.file("again.enc"));
  ASSERT_EQ(a.size(), b.size());
  EXPECT_NE(a, b);  // fresh base nonce
  EXPECT_FALSE(std::equal(a.begin() + 200, a.begin() + 300, b.begin() + 200));
}

TEST(EncryptedReader, SeekableReadsMatchThePlaintext) {
  Fixture f;
  auto r = EncryptedReader::open(f.enc, key_a());
  std::mt19937 rng(7);
  std::vector<std::pair<uint64_t, size_t>> ranges = {{0, 0},
                                                     {0, 1},
                                                     {0, kChunk},
                                                     {kChunk, kChunk},
                                                     {kChunk - 1, 2},
                                                     {100, 3 * kChunk},
                                                     {0, f.plain.size()},
                                                     {f.plain.size() - 1, 1},
                                                     {3 * kChunk, kChunk / 2},
                                                     {f.plain.size(), 0}};
  for (int i = 0; i < 200; ++i) {
    const uint64_t off = rng() % f.plain.size();
    ranges.emplace_back(off, rng() % (f.plain.size() - off + 1));
  }
  for (auto [off, len] : ranges) {
    std::vector<uint8_t> dst(len + 2, 0xEE);
    r->read(off, len, dst.data() + 1);
    EXPECT_TRUE(std::equal(dst.begin() + 1, dst.begin() + 1 + static_cast<std::ptrdiff_t>(len),
                           f.plain.begin() + static_cast<std::ptrdiff_t>(off)))
        << off << "+" << len;
    EXPECT_EQ(dst.front(), 0xEE);
    EXPECT_EQ(dst.back(), 0xEE);
  }
  std::vector<uint8_t> dst(10);
  EXPECT_EQ(failure_of([&] { r->read(f.plain.size() - 5, 10, dst.data()); }).code, code_string(codes::kInvalidArgument));
}

TEST(EncryptedReader, SeekableReadWorksOnADescriptor) {
  Fixture f;
  const int fd = ::open(f.enc.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  auto r = EncryptedReader::from_fd(fd, "fd model", key_a());
  ::close(fd);  // the reader holds its own duplicate
  std::vector<uint8_t> dst(5000);
  r->read(3000, dst.size(), dst.data());
  EXPECT_TRUE(std::equal(dst.begin(), dst.end(), f.plain.begin() + 3000));
}

TEST(EncryptedReader, WrongKeyIsReportedBeforeDecrypting) {
  Fixture f;
  const Failure e = failure_of([&] { EncryptedReader::open(f.enc, key_b()); });
  EXPECT_EQ(e.code, code_string(codes::kModelKeyMismatch));
  EXPECT_NE(e.message.find("does not match"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find(kKeyHexB), std::string::npos);
}

TEST(EncryptedReader, FlippedBitInAnyChunkNamesTheChunkAndWipesThePlaintext) {
  Fixture f;
  const auto good = f.bytes();
  const size_t n = 4;
  // first, middle and last chunk; in the ciphertext and in the tag.
  for (size_t chunk : {size_t{0}, size_t{2}, n - 1}) {
    const size_t start = 128 + chunk * kRecord;
    const size_t len = chunk + 1 == n ? kChunk / 2 : kChunk;
    for (size_t off : {start, start + len / 2, start + len - 1, start + len, start + len + 15}) {
      auto b = good;
      b[off] ^= 0x10;
      std::vector<uint8_t> out;
      const Failure e = decrypt_failure(f.variant(b), &out);
      EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed)) << off;
      EXPECT_NE(e.message.find("chunk " + std::to_string(chunk) + " of 4"), std::string::npos) << e.message;
      EXPECT_NE(e.message.find("failed authentication"), std::string::npos) << e.message;
      EXPECT_EQ(out.size(), f.plain.size());
      EXPECT_TRUE(all_zero(out)) << "plaintext left after a failure at offset " << off;
    }
  }
}

TEST(EncryptedReader, FlippedBitAnywhereInTheHeaderIsRefused) {
  Fixture f;
  const auto good = f.bytes();
  std::set<std::string> codes_seen;
  for (size_t byte = 0; byte < 128; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      auto b = good;
      b[byte] ^= static_cast<uint8_t>(1u << bit);
      const Failure e = decrypt_failure(f.variant(b));
      ASSERT_FALSE(e.code.empty()) << "header byte " << byte << " bit " << bit << " was accepted";
      codes_seen.insert(e.code);
      if ((byte >= 20 && byte < 24) || byte == 30 || byte == 31) {
        // Chunk size and the top of the plaintext size: range-checked first, else the header tag.
        EXPECT_TRUE(e.code == code_string(codes::kInvalidModel) || e.code == code_string(codes::kDecryptionFailed)) << byte << e.code;
      } else if (byte >= 24 && byte < 64) {  // sizes and digest: authenticated by the header tag
        EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed)) << byte;
        EXPECT_NE(e.message.find("header failed authentication"), std::string::npos) << e.message;
      } else if (byte >= 64 && byte < 80) {
        EXPECT_EQ(e.code, code_string(codes::kModelKeyMismatch)) << byte;
      } else if (byte >= 80 && byte < 92) {
        EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed)) << byte;  // base nonce
      } else if (byte >= 112) {
        EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed)) << byte;  // the tag itself
      } else {
        EXPECT_EQ(e.code, code_string(codes::kInvalidModel)) << byte;  // magic, version, sizes, algorithm, reserved
      }
    }
  }
  EXPECT_EQ(codes_seen.size(), 3u);
}

TEST(EncryptedReader, TruncatedOrExtendedFilesAreRefused) {
  Fixture f;
  const auto good = f.bytes();
  for (size_t cut :
       {size_t{1}, size_t{16}, size_t{17}, size_t{kChunk / 2 + 16}, good.size() - 128, good.size() - 100}) {
    std::vector<uint8_t> b(good.begin(), good.end() - static_cast<std::ptrdiff_t>(cut));
    const Failure e = decrypt_failure(f.variant(b));
    EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed)) << cut;
    EXPECT_NE(e.message.find("truncated"), std::string::npos) << e.message;
  }
  // Dropping the last chunk entirely, or a whole middle chunk.
  std::vector<uint8_t> drop_mid(good);
  drop_mid.erase(drop_mid.begin() + 128 + kRecord, drop_mid.begin() + 128 + 2 * kRecord);
  EXPECT_EQ(decrypt_failure(f.variant(drop_mid)).code, code_string(codes::kDecryptionFailed));
  auto longer = good;
  longer.push_back(0);
  const Failure e = decrypt_failure(f.variant(longer));
  EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed));
  EXPECT_NE(e.message.find("after its last chunk"), std::string::npos) << e.message;
  // Too short to hold the magic: not an encrypted model at all.
  EXPECT_EQ(decrypt_failure(f.variant(std::vector<uint8_t>(good.begin(), good.begin() + 5))).code,
            code_string(codes::kInvalidModel));
}

TEST(EncryptedReader, SwappedChunksAreRefused) {
  Fixture f;
  auto b = f.bytes();
  std::swap_ranges(b.begin() + 128 + kRecord, b.begin() + 128 + 2 * kRecord, b.begin() + 128 + 2 * kRecord);
  const Failure e = decrypt_failure(f.variant(b));
  EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed));
  EXPECT_NE(e.message.find("chunk 1 of 4"), std::string::npos) << e.message;
}

TEST(EncryptedReader, ChunkFromAnotherFileWithTheSameKeyIsRefused) {
  Fixture f;
  // Same plaintext, same key, same chunk size: only the base nonce differs.
  encrypt_to(f.dir.file("m.bin"), f.dir.file("other.enc"), key_a(), kChunk);
  auto b = f.bytes();
  const auto other = read_bytes(f.dir.file("other.enc"));
  std::copy(other.begin() + 128 + 2 * kRecord, other.begin() + 128 + 3 * kRecord,
            b.begin() + 128 + 2 * kRecord);
  const Failure e = decrypt_failure(f.variant(b));
  EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed));
  EXPECT_NE(e.message.find("chunk 2 of 4"), std::string::npos) << e.message;
  // And the other file's header with this file's chunks.
  auto c = f.bytes();
  std::copy(other.begin(), other.begin() + 128, c.begin());
  EXPECT_EQ(decrypt_failure(f.variant(c)).code, code_string(codes::kDecryptionFailed));
}

TEST(EncryptedReader, ChunkTagsBindIndexAndLastFlag) {
  const ModelKey key = key_a();
  AesGcm seal(key, AesGcm::Direction::Seal);
  AesGcm open = AesGcm(key, AesGcm::Direction::Open).clone();
  const GcmNonce nonce{9};
  Sha256Digest hd{};
  const auto plain = random_bytes(100, 5);
  std::vector<uint8_t> ct(plain.size()), out(plain.size());
  const GcmTag tag = seal.seal(nonce, chunk_aad(hd, 3, false), plain, ct);
  EXPECT_TRUE(open.open(nonce, chunk_aad(hd, 3, false), ct, out, tag));
  EXPECT_EQ(out, plain);
  EXPECT_FALSE(open.open(nonce, chunk_aad(hd, 3, true), ct, out, tag));   // claimed to be the last
  EXPECT_FALSE(open.open(nonce, chunk_aad(hd, 4, false), ct, out, tag));  // another index
  hd[31] = 1;
  EXPECT_FALSE(open.open(nonce, chunk_aad(hd, 3, false), ct, out, tag));  // another header
}

TEST(EncryptedReader, SeekableReadWipesWhatItWroteOnFailure) {
  Fixture f;
  auto b = f.bytes();
  b[128 + 2 * kRecord + 10] ^= 1;  // chunk 2
  const std::string v = f.variant(b);
  auto r = EncryptedReader::open(v, key_a());
  std::vector<uint8_t> dst(f.plain.size(), 0xAA);
  const Failure e = failure_of([&] { r->read(100, dst.size() - 100, dst.data() + 100); });
  EXPECT_EQ(e.code, code_string(codes::kDecryptionFailed));
  EXPECT_TRUE(std::all_of(dst.begin(), dst.begin() + 100, [](uint8_t x) { return x == 0xAA; }));
  // Chunks 0 and 1 had been decrypted into dst, chunk 2 failed: all of it is zero now.
  EXPECT_TRUE(std::all_of(dst.begin() + 100, dst.begin() + 3 * kChunk, [](uint8_t x) { return x == 0; }));
  // A read that does not touch chunk 2 still works (chunks are independent).
  std::vector<uint8_t> ok(kChunk);
  r->read(kChunk, kChunk, ok.data());
  EXPECT_TRUE(std::equal(ok.begin(), ok.end(), f.plain.begin() + kChunk));
}

TEST(EncryptedReader, HeaderDigestThatDoesNotMatchIsAnIntegrityError) {
  // A key holder could write a header whose plaintext SHA-256 is wrong; the load must still fail.
  Fixture f;
  const ModelKey key = key_a();
  EncryptedHeader h;
  h.chunk_bytes = kChunk;
  h.plaintext_bytes = f.plain.size();
  h.plaintext_sha256 = sha256(f.plain);
  h.plaintext_sha256[0] ^= 1;
  h.key_id = key.key_id();
  h.base_nonce = GcmNonce{1, 2, 3};
  AesGcm gcm(key, AesGcm::Direction::Seal);
  std::array<uint8_t, 0> none{};
  h.header_tag = gcm.seal(h.header_nonce(), h.header_aad(), none, none);
  const HeaderBytes hb = h.encode();
  std::vector<uint8_t> file(hb.begin(), hb.end());
  const Sha256Digest hd = sha256(hb);
  for (uint64_t i = 0; i < h.n_chunks(); ++i) {
    const auto src = std::span(f.plain).subspan(h.chunk_plain_offset(i), h.chunk_plain_bytes(i));
    std::vector<uint8_t> ct(src.size());
    const GcmTag tag = gcm.seal(h.chunk_nonce(i), chunk_aad(hd, i, h.is_last(i)), src, ct);
    file.insert(file.end(), ct.begin(), ct.end());
    file.insert(file.end(), tag.begin(), tag.end());
  }
  std::vector<uint8_t> out;
  const Failure e = decrypt_failure(f.variant(file), &out);
  EXPECT_EQ(e.code, code_string(codes::kIntegrity));
  EXPECT_NE(e.message.find("plaintext SHA-256"), std::string::npos) << e.message;
  EXPECT_TRUE(all_zero(out));
}

}  // namespace
}  // namespace a3s::power::crypto::test
