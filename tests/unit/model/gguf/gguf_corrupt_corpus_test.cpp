// The corrupt-file corpus: every hand-made corrupt image is rejected with a clean, one-line Error
// (from memory and from disk), and the committed corpus in tests/data/gguf-corrupt/ matches the
// generator. Set A3S_WRITE_GGUF_CORPUS=1 to (re)write the committed corpus and fuzzing seeds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"
#include "gguf_corrupt_cases.h"

namespace a3s::power::gguf {
namespace {

namespace fs = std::filesystem;
using testing::Bytes;

const fs::path kCorpusDir = fs::path(A3S_SOURCE_DIR) / "tests/data/gguf-corrupt";
const fs::path kSeedDir = fs::path(A3S_SOURCE_DIR) / "tests/fuzz/seeds";

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& p, const Bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Expects `fn` to throw an Error with `code` and a one-line message containing `needle`.
template <typename Fn>
void expect_clean_error(Fn fn, const std::string& code, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "accepted a corrupt file";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.code(), code) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\r'), std::string::npos) << msg;
    EXPECT_TRUE(msg.find("offset") != std::string::npos || msg.find("tensor") != std::string::npos) << msg;
    EXPECT_LT(msg.size(), 400u) << msg;
  }
}

TEST(GgufCorruptCorpus, CaseNamesAreUnique) {
  const auto cases = testing::corrupt_cases();
  EXPECT_GE(cases.size(), 40u);
  std::set<std::string> names;
  for (const auto& c : cases) EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

TEST(GgufCorruptCorpus, CommittedCorpusMatchesGenerator) {
  const bool write = std::getenv("A3S_WRITE_GGUF_CORPUS") != nullptr;
  if (write) {
    fs::create_directories(kCorpusDir);
    fs::create_directories(kSeedDir);
  }
  std::set<std::string> expected;
  for (const auto& c : testing::corrupt_cases()) {
    const fs::path p = kCorpusDir / (c.name + ".gguf");
    expected.insert(p.filename().string());
    if (write) write_file(p, c.bytes);
    ASSERT_TRUE(fs::exists(p)) << p << " missing: run with A3S_WRITE_GGUF_CORPUS=1";
    EXPECT_EQ(read_file(p), c.bytes) << p << " is stale: run with A3S_WRITE_GGUF_CORPUS=1";
  }
  for (const auto& s : testing::valid_seeds()) {
    const fs::path p = kSeedDir / (s.name + ".gguf");
    if (write) write_file(p, s.bytes);
    ASSERT_TRUE(fs::exists(p)) << p;
    EXPECT_EQ(read_file(p), s.bytes) << p;
  }
  // No stray files in the corpus directory besides the README.
  for (const auto& e : fs::directory_iterator(kCorpusDir)) {
    const std::string name = e.path().filename().string();
    if (name == "README.md") continue;
    EXPECT_TRUE(expected.count(name)) << "unexpected corpus file " << name;
  }
}

TEST(GgufCorruptCorpus, EveryCommittedFileIsRejectedFromDisk) {
  size_t n = 0;
  for (const auto& c : testing::corrupt_cases()) {
    const fs::path p = kCorpusDir / (c.name + ".gguf");
    if (!fs::exists(p)) continue;  // reported by CommittedCorpusMatchesGenerator
    SCOPED_TRACE(p.string());
    ++n;
    expect_clean_error([&] { (void)File::open(p.string()); }, c.code, c.message);
  }
  EXPECT_GE(n, 40u);
}

TEST(GgufCorruptCorpus, EveryPrefixOfAValidFileIsRejectedCleanly) {
  const Bytes img = testing::minimal_model().build();
  ASSERT_NO_THROW((void)File::from_memory(img));
  for (size_t n = 0; n < img.size(); ++n) {
    SCOPED_TRACE(n);
    try {
      (void)File::from_memory(std::span<const uint8_t>(img.data(), n));
      ADD_FAILURE() << "accepted a truncated file";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), codes::kInvalidModel);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(GgufCorruptCorpus, SingleByteFlipsNeverCrash) {
  // Every byte of the header, metadata and tensor infos flipped in turn: the reader either accepts
  // the image (e.g. a changed name) or throws a one-line Error; nothing else escapes.
  const Bytes img = testing::minimal_model().build();
  const auto file = File::from_memory(img);
  size_t rejected = 0;
  for (size_t i = 0; i < file->data_offset(); ++i) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xff}}) {
      Bytes m = img;
      m[i] ^= mask;
      try {
        (void)File::from_memory(m);
      } catch (const Error& e) {
        ++rejected;
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      }
    }
  }
  EXPECT_GT(rejected, 100u);
}

}  // namespace
}  // namespace a3s::power::gguf
