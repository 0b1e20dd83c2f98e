// The GGUF reader on hand-built images: valid edge cases are accepted and decoded exactly, and
// each way of being malformed (gguf_corrupt_cases.cpp) is rejected with its own clean error.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"
#include "gguf_corrupt_cases.h"
#include "support/gguf_builder.h"

namespace a3s::power::gguf {
namespace {

using namespace testing;  // NOLINT: test helpers

std::string error_of(const Bytes& img, const std::string& name = "<memory>") {
  try {
    (void)File::from_memory(img, name);
  } catch (const Error& e) {
    return e.code() + ": " + e.what();
  }
  return "accepted";
}

class GgufRejects : public ::testing::TestWithParam<CorruptCase> {};

TEST_P(GgufRejects, WithOneLineError) {
  const CorruptCase& c = GetParam();
  try {
    (void)File::from_memory(c.bytes, c.name);
    FAIL() << "accepted";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.code(), c.code) << msg;
    EXPECT_NE(msg.find(c.message), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.name), std::string::npos) << "message should name the file: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Corrupt, GgufRejects, ::testing::ValuesIn(corrupt_cases()),
                         [](const ::testing::TestParamInfo<CorruptCase>& info) {
                           std::string n = info.param.name;
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });

TEST(GgufHandBuilt, MinimalModelDecodes) {
  const Bytes img = minimal_model().build();
  auto f = File::from_memory(img);
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->keys().size(), 10u);
  EXPECT_EQ(f->keys()[0], "general.architecture");
  EXPECT_EQ(f->get_string("general.name"), "mini");
  EXPECT_EQ(f->get_u64("llama.block_count"), 1u);
  EXPECT_FLOAT_EQ(static_cast<float>(*f->get_f64("llama.attention.layer_norm_rms_epsilon")), 1e-5f);
  EXPECT_EQ(f->get_bool("tokenizer.ggml.add_bos_token"), true);
  EXPECT_EQ(f->get_string_array("tokenizer.ggml.tokens"),
            (std::vector<std::string>{"<unk>", "<s>", "</s>", "a"}));
  EXPECT_EQ(f->get_f64_array("tokenizer.ggml.scores"), (std::vector<double>{0, 0, 0, -1.5}));
  EXPECT_EQ(f->get_i64_array("tokenizer.ggml.token_type"), (std::vector<int64_t>{2, 3, 3, 1}));

  ASSERT_EQ(f->tensors().size(), 3u);
  const auto& emb = f->tensors()[0];
  EXPECT_EQ(emb.name, "token_embd.weight");
  EXPECT_EQ(emb.offset, 0u);
  EXPECT_EQ(emb.size_bytes, 32u * 4u * 4u);
  const auto* norm = f->find_tensor("output_norm.weight");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->type, TensorType::F16);
  EXPECT_EQ(norm->n_dims, 1u);
  EXPECT_EQ(norm->ne[1], 1);
  EXPECT_EQ(norm->size_bytes, 64u);
  EXPECT_EQ(norm->offset, 512u);
  const auto* out = f->find_tensor("output.weight");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->type, TensorType::Q8_0);
  EXPECT_EQ(out->size_bytes, 4u * 34u);
  EXPECT_EQ(out->n_elements(), 128);
  EXPECT_EQ(out->n_rows(), 4);
  EXPECT_EQ(f->data_offset() % 32, 0u);
  EXPECT_EQ(out->file_offset, f->data_offset() + out->offset);
  EXPECT_EQ(f->tensor_data(*out), img.data() + out->file_offset);
  EXPECT_EQ(out->file_offset + out->size_bytes, img.size());
}

TEST(GgufHandBuilt, Version2AndVocabularyOnlyAccepted) {
  for (const auto& seed : valid_seeds()) {
    SCOPED_TRACE(seed.name);
    EXPECT_NO_THROW((void)File::from_memory(seed.bytes));
  }
  RawGguf w;
  w.version = 2;
  w.kv_str("tokenizer.ggml.model", "gpt2");
  const Bytes img = w.build();
  auto f = File::from_memory(img);
  EXPECT_EQ(f->version(), 2u);
  EXPECT_TRUE(f->tensors().empty());
  EXPECT_EQ(f->data_offset(), img.size());  // clamped: no padding after the metadata
}

TEST(GgufHandBuilt, CustomAlignmentPlacesData) {
  RawGguf w;
  w.alignment = 128;
  w.kv_u64("general.alignment", 128);
  w.tensor("a", {8}, 0).tensor("b", {8}, 0);
  const Bytes img = w.build();
  auto f = File::from_memory(img);
  EXPECT_EQ(f->alignment(), 128u);
  EXPECT_EQ(f->data_offset() % 128, 0u);
  EXPECT_EQ(f->find_tensor("b")->offset, 128u);
}

TEST(GgufHandBuilt, IntegerWidthsAndSignedness) {
  RawGguf w;
  w.kv_typed("k.i8", kI8, Bytes{0xfb});
  w.kv_typed("k.u16", kU16, Bytes{0x34, 0x12});
  w.kv_typed("k.i16", kI16, Bytes{0x00, 0x80});
  w.kv_i32("k.i32", -7);
  w.kv_u64("k.u64max", std::numeric_limits<uint64_t>::max());
  Bytes i64;
  put_u64(i64, static_cast<uint64_t>(std::numeric_limits<int64_t>::min()));
  w.kv_typed("k.i64min", kI64, i64);
  Bytes f64;
  put_u64(f64, 0x400921fb54442d18ull);  // pi
  w.kv_typed("k.f64", kF64, f64);
  const Bytes img = w.build();
  auto f = File::from_memory(img);
  EXPECT_EQ(f->get_i64("k.i8"), -5);
  EXPECT_EQ(f->find("k.i8")->type, ValueType::INT8);
  EXPECT_THROW((void)f->get_u64("k.i8"), Error);  // negative
  EXPECT_EQ(f->get_u64("k.u16"), 0x1234u);
  EXPECT_EQ(f->get_i64("k.i16"), -32768);
  EXPECT_EQ(f->get_i64("k.i32"), -7);
  EXPECT_EQ(f->get_f64("k.i32"), -7.0);
  EXPECT_EQ(f->get_u64("k.u64max"), std::numeric_limits<uint64_t>::max());
  EXPECT_THROW((void)f->get_i64("k.u64max"), Error);  // does not fit
  EXPECT_EQ(f->get_i64("k.i64min"), std::numeric_limits<int64_t>::min());
  EXPECT_DOUBLE_EQ(*f->get_f64("k.f64"), 3.141592653589793);
  EXPECT_THROW((void)f->get_i64("k.f64"), Error);
}

TEST(GgufHandBuilt, NestedArraysUpToTheLimit) {
  // [[1, 2], []] : array of two arrays of u8.
  Bytes p;
  put_u32(p, kArray);
  put_u64(p, 2);
  put_u32(p, kU8);
  put_u64(p, 2);
  p.insert(p.end(), {1, 2});
  put_u32(p, kU8);
  put_u64(p, 0);
  RawGguf w;
  w.kv_typed("k.nested", kArray, p);
  const Bytes img = w.build();
  auto f = File::from_memory(img);
  const Value* v = f->find("k.nested");
  ASSERT_NE(v, nullptr);
  const auto& outer = std::get<Array>(v->v);
  EXPECT_EQ(outer.elem_type, ValueType::ARRAY);
  ASSERT_EQ(outer.items.size(), 2u);
  const auto& first = std::get<Array>(outer.items[0].v);
  ASSERT_EQ(first.items.size(), 2u);
  EXPECT_EQ(std::get<uint64_t>(first.items[1].v), 2u);
  EXPECT_TRUE(std::get<Array>(outer.items[1].v).items.empty());
  EXPECT_THROW((void)f->get_i64_array("k.nested"), Error);
}

TEST(GgufHandBuilt, KeyAndTensorNameLengthLimits) {
  RawGguf ok;
  ok.kv_u32(std::string(65535, 'k'), 1);
  ok.tensor(std::string(64, 't'), {8}, 0);
  EXPECT_NO_THROW((void)File::from_memory(ok.build()));

  RawGguf long_key;
  long_key.kv_u32(std::string(65536, 'k'), 1);
  const std::string err = error_of(long_key.build());
  EXPECT_NE(err.find("invalid_model: "), std::string::npos) << err;
  EXPECT_NE(err.find("metadata key length 65536 exceeds the limit of 65535 bytes at offset 24"),
            std::string::npos)
      << err;
}

TEST(GgufHandBuilt, UntrustedNamesAreEscapedInMessages) {
  RawGguf w;
  w.tensor("bad\nname\x01", {8}, 42);
  const std::string err = error_of(w.build(), "model\r\n.gguf");
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  EXPECT_NE(err.find("unsupported_tensor_type: "), std::string::npos) << err;
  EXPECT_NE(err.find("tensor 'bad\\x0aname\\x01'"), std::string::npos) << err;
  EXPECT_NE(err.find("model\\x0d\\x0a.gguf"), std::string::npos) << err;
}

TEST(GgufHandBuilt, UnsupportedTypeErrorNamesTensorAndType) {
  RawGguf w;
  w.tensor("blk.0.ffn_up.weight", {256, 2}, 15);
  const std::string err = error_of(w.build());
  EXPECT_NE(err.find("unsupported_tensor_type"), std::string::npos) << err;
  EXPECT_NE(err.find("blk.0.ffn_up.weight"), std::string::npos) << err;
  EXPECT_NE(err.find("q8_K"), std::string::npos) << err;
}

TEST(GgufHandBuilt, TensorsMayBeStoredOutOfOrder) {
  RawGguf w;
  w.tensor("late", {8}, 0, 32).tensor("early", {8}, 0, 0);
  const Bytes img = w.build();
  auto f = File::from_memory(img);
  EXPECT_EQ(f->tensors()[0].name, "late");
  EXPECT_EQ(f->find_tensor("early")->offset, 0u);
}

TEST(GgufHandBuilt, MetadataValueCountIsCapped) {
  // A u8 array one element over the cap: rejected before anything is allocated for it.
  RawGguf w;
  Bytes p;
  put_u32(p, kU8);
  put_u64(p, kMaxMetadataValues);  // + the array value itself = one over
  p.resize(p.size() + kMaxMetadataValues, 0);
  w.kv_typed("k.big", kArray, p);
  const std::string err = error_of(w.build());
  EXPECT_NE(err.find("exceeds the limit of " + std::to_string(kMaxMetadataValues) + " metadata values"),
            std::string::npos)
      << err;
  // The cap is on the total: 11 values already decoded plus an array that alone would fit.
  RawGguf many;
  Bytes small;
  put_u32(small, kU8);
  put_u64(small, 10);
  small.resize(small.size() + 10, 0);
  Bytes rest;
  put_u32(rest, kU8);
  put_u64(rest, kMaxMetadataValues - 5);
  rest.resize(rest.size() + kMaxMetadataValues - 5, 0);
  many.kv_typed("k.a", kArray, small).kv_typed("k.b", kArray, rest);
  EXPECT_NE(error_of(many.build()).find("metadata values"), std::string::npos);
}

}  // namespace
}  // namespace a3s::power::gguf
