// Header-only parsing (File::from_prefix), as stream decryption uses it: the same metadata and tensor
// index as a mapped open, read through a growing prefix when the header is larger than the first
// read, and the same bounds checks against the declared file size.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"
#include "model/gguf/gguf_writer.h"

namespace a3s::power::gguf {
namespace {

std::vector<uint8_t> slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

// Reads from `bytes`, recording the prefix lengths asked for.
struct PrefixSource {
  const std::vector<uint8_t>& bytes;
  std::vector<size_t> reads;
  File::PrefixReader reader() {
    return [this](uint64_t off, std::span<uint8_t> dst) {
      ASSERT_LE(off + dst.size(), bytes.size());
      std::memcpy(dst.data(), bytes.data() + off, dst.size());
      reads.push_back(dst.size());
    };
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(GgufPrefix, SameIndexAsTheMappedFile) {
  for (const char* name : {"stories260K", "tiny-qwen2-Q4_K_M", "tiny-llama-f32"}) {
    const std::string path = std::string(A3S_TESTDATA_DIR) + "/models/" + name + ".gguf";
    const std::vector<uint8_t> bytes = slurp(path);
    auto mapped = File::open(path);
    PrefixSource src{bytes, {}};
    auto header = File::from_prefix(src.reader(), bytes.size(), path);
    EXPECT_TRUE(header->header_only());
    EXPECT_FALSE(mapped->header_only());
    EXPECT_EQ(header->size(), mapped->size());
    EXPECT_LT(header->bytes().size(), bytes.size()) << name << ": only a prefix is read";
    EXPECT_EQ(header->keys(), mapped->keys());
    EXPECT_EQ(header->get_string_array("tokenizer.ggml.tokens"), mapped->get_string_array("tokenizer.ggml.tokens"));
    EXPECT_EQ(header->data_offset(), mapped->data_offset());
    ASSERT_EQ(header->tensors().size(), mapped->tensors().size());
    for (size_t i = 0; i < mapped->tensors().size(); ++i) {
      EXPECT_EQ(header->tensors()[i].name, mapped->tensors()[i].name);
      EXPECT_EQ(header->tensors()[i].type, mapped->tensors()[i].type);
      EXPECT_EQ(header->tensors()[i].file_offset, mapped->tensors()[i].file_offset);
      EXPECT_EQ(header->tensors()[i].size_bytes, mapped->tensors()[i].size_bytes);
    }
  }
}

TEST(GgufPrefix, LargeHeaderIsReadInGrowingPrefixes) {
  const auto dir = std::filesystem::temp_directory_path() / ("a3s-gguf-prefix-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "big.gguf").string();
  Writer w;
  // About 3 MiB of metadata: three times the first read.
  w.set_string("x.blob", std::string(3u << 20, 'b'));
  const int64_t ne[] = {8};
  w.add_tensor("t", TensorType::F32, ne);
  std::vector<uint8_t> data(32, 7);
  w.begin(path);
  w.append(data);
  w.finish();
  const std::vector<uint8_t> bytes = slurp(path);
  std::filesystem::remove_all(dir);

  PrefixSource src{bytes, {}};
  auto f = File::from_prefix(src.reader(), bytes.size(), "big.gguf");
  ASSERT_GE(src.reads.size(), 3u);
  for (size_t i = 1; i < src.reads.size(); ++i) EXPECT_GT(src.reads[i], src.reads[i - 1]);
  EXPECT_EQ(f->get_string("x.blob")->size(), 3u << 20);
  ASSERT_EQ(f->tensors().size(), 1u);
  EXPECT_EQ(f->tensors()[0].file_offset + 32, bytes.size());
}

TEST(GgufPrefix, BoundsAreCheckedAgainstTheDeclaredSize) {
  const std::string path = std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf";
  const std::vector<uint8_t> bytes = slurp(path);
  PrefixSource src{bytes, {}};
  // The tensor data would end past a declared size one byte short of the real one.
  EXPECT_NE(error_of([&] { File::from_prefix(src.reader(), bytes.size() - 1, "m"); }).find("runs past end of file"),
            std::string::npos);
  // A declared size that cuts the header: the same errors as a truncated file.
  const std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + 100);
  const std::string cut_error = error_of([&] { File::from_memory(cut, "m"); });
  EXPECT_NE(cut_error, "");
  EXPECT_EQ(error_of([&] { File::from_prefix(src.reader(), 100, "m"); }), cut_error);
  const std::vector<uint8_t> cut2(bytes.begin(), bytes.begin() + 5000);
  EXPECT_EQ(error_of([&] { File::from_prefix(src.reader(), 5000, "m"); }), error_of([&] { File::from_memory(cut2, "m"); }));
  EXPECT_NE(error_of([&] { File::from_prefix(src.reader(), 2, "m"); }).find("truncated header"), std::string::npos);
  // A read error propagates as it is.
  auto failing = [](uint64_t, std::span<uint8_t>) { throw Error(codes::kDecryptionFailed, "chunk 0 failed"); };
  EXPECT_EQ(error_of([&] { File::from_prefix(failing, bytes.size(), "m"); }), "chunk 0 failed");
}

}  // namespace
}  // namespace a3s::power::gguf
