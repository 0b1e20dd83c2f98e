// The streaming GGUF writer: what it writes reads back identically (metadata of every type, tensor
// shapes, types, offsets, bytes), and misuse is refused without leaving a file behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"
#include "model/gguf/gguf_writer.h"

namespace a3s::power::gguf {
namespace {

struct Dir {
  std::filesystem::path p = std::filesystem::temp_directory_path() /
                            ("a3s-gguf-writer-" + std::to_string(::getpid()) + "-" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Dir() { std::filesystem::create_directories(p); }
  ~Dir() { std::filesystem::remove_all(p); }
  std::string file(const char* n) const { return (p / n).string(); }
};

TEST(GgufStreamWriter, RoundTripsMetadataAndTensors) {
  Dir d;
  Writer w(64);
  w.set_string("general.architecture", "llama");
  w.set_u32("llama.block_count", 7);
  w.set_f32("llama.rope.freq_base", 500000.0f);
  w.set_bool("tokenizer.ggml.add_bos_token", true);
  w.set("x.i64", {ValueType::INT64, int64_t{-5}});
  w.set("x.f64", {ValueType::FLOAT64, 0.125});
  w.set("x.strings", {ValueType::ARRAY, Array{ValueType::STRING, {{ValueType::STRING, std::string("a")},
                                                                   {ValueType::STRING, std::string("bc")}}}});
  w.set("x.i32s", {ValueType::ARRAY, Array{ValueType::INT32, {{ValueType::INT32, int64_t{-1}},
                                                               {ValueType::INT32, int64_t{2}}}}});
  w.set_u32("llama.block_count", 8);  // replaced in place
  const int64_t ne_a[] = {32, 3};
  const int64_t ne_b[] = {5};
  w.add_tensor("a", TensorType::Q8_0, ne_a);  // 3 rows × 34 bytes
  w.add_tensor("b", TensorType::F32, ne_b);
  EXPECT_EQ(w.tensors()[1].offset, 128u) << "offsets are aligned to 64";
  std::vector<uint8_t> a(102), b(20);
  std::iota(a.begin(), a.end(), uint8_t{1});
  std::iota(b.begin(), b.end(), uint8_t{200});
  w.begin(d.file("m.gguf"));
  w.append({a.data(), 50});
  w.append({a.data() + 50, 52});
  w.append(b);
  w.finish();

  auto f = File::open(d.file("m.gguf"));
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->alignment(), 64u);
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_u64("llama.block_count"), 8u);
  EXPECT_EQ(f->get_f64("llama.rope.freq_base"), 500000.0);
  EXPECT_EQ(f->get_bool("tokenizer.ggml.add_bos_token"), true);
  EXPECT_EQ(f->get_i64("x.i64"), -5);
  EXPECT_EQ(f->get_f64("x.f64"), 0.125);
  EXPECT_EQ(f->get_string_array("x.strings"), (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(f->get_i64_array("x.i32s"), (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(f->keys().front(), "general.alignment");
  ASSERT_EQ(f->tensors().size(), 2u);
  const TensorInfo& ta = f->tensors()[0];
  EXPECT_EQ(ta.type, TensorType::Q8_0);
  EXPECT_EQ(ta.ne[1], 3);
  EXPECT_EQ(std::vector<uint8_t>(f->tensor_data(ta), f->tensor_data(ta) + 102), a);
  const TensorInfo& tb = f->tensors()[1];
  EXPECT_EQ(tb.n_dims, 1u);
  EXPECT_EQ(std::vector<uint8_t>(f->tensor_data(tb), f->tensor_data(tb) + 20), b);
}

TEST(GgufStreamWriter, RefusesBadTensors) {
  Writer w;
  const int64_t ok[] = {32, 2}, odd[] = {33, 2}, zero[] = {32, 0}, five[] = {1, 1, 1, 1, 1};
  EXPECT_THROW(w.add_tensor("q", TensorType::Q4_0, odd), Error);
  EXPECT_THROW(w.add_tensor("z", TensorType::F32, zero), Error);
  EXPECT_THROW(w.add_tensor("f", TensorType::F32, five), Error);
  EXPECT_THROW(w.add_tensor(std::string(65, 'n'), TensorType::F32, ok), Error);
  EXPECT_THROW(w.add_tensor("k", TensorType::Q8_K, ok), Error) << "activation-only type";
  EXPECT_THROW(Writer(48), Error) << "alignment must be a power of two";
}

TEST(GgufStreamWriter, IncompleteOrOverlongDataLeavesNoFile) {
  Dir d;
  {
    Writer w;
    const int64_t ne[] = {4};
    w.add_tensor("t", TensorType::F32, ne);
    w.begin(d.file("short.gguf"));
    std::vector<uint8_t> part(10);
    w.append(part);
    EXPECT_THROW(w.finish(), Error);
    std::vector<uint8_t> extra(20);
    EXPECT_THROW(w.append(extra), Error);
  }
  {
    Writer w;
    const int64_t ne[] = {4};
    w.add_tensor("t", TensorType::F32, ne);
    w.begin(d.file("abandoned.gguf"));
    EXPECT_THROW(w.set_u32("late", 1), Error);
  }  // destroyed without finish()
  EXPECT_TRUE(std::filesystem::is_empty(d.p));
}

TEST(GgufStreamWriter, UnwritableDirectoryIsAnIoError) {
  Writer w;
  try {
    w.begin("/nonexistent-dir/m.gguf");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
  }
}

}  // namespace
}  // namespace a3s::power::gguf
