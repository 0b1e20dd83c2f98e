#include "gguf_corrupt_cases.h"

#include <cstdint>

#include "a3s/power/error.h"

namespace a3s::power::gguf::testing {
namespace {

constexpr uint32_t kF32T = 0, kQ8_0T = 8, kQ8_1T = 9, kQ8_KT = 15;

Bytes header(uint32_t magic, uint32_t version) {
  Bytes b;
  put_u32(b, magic);
  put_u32(b, version);
  return b;
}

// One F32 tensor of 8 elements named `name`.
RawGguf one_tensor(const std::string& name = "w") {
  RawGguf w;
  w.kv_str("general.architecture", "llama");
  w.tensor(name, {8}, kF32T);
  return w;
}

Bytes tensor_info(const std::string& name, const std::vector<uint64_t>& ne, uint32_t type, uint64_t offset,
                  std::optional<uint32_t> n_dims = std::nullopt) {
  Bytes b;
  put_str(b, name);
  put_u32(b, n_dims.value_or(static_cast<uint32_t>(ne.size())));
  for (uint64_t d : ne) put_u64(b, d);
  put_u32(b, type);
  put_u64(b, offset);
  return b;
}

Bytes nested_array(int depth) {
  // depth 1: array of u8 [7]; depth n: array of (depth n-1) arrays, one element each.
  Bytes p;
  if (depth == 1) {
    put_u32(p, kU8);
    put_u64(p, 1);
    put_u8(p, 7);
    return p;
  }
  put_u32(p, kArray);
  put_u64(p, 1);
  Bytes inner = nested_array(depth - 1);
  p.insert(p.end(), inner.begin(), inner.end());
  return p;
}

}  // namespace

std::vector<CorruptCase> corrupt_cases() {
  const std::string bad = code_string(codes::kInvalidModel);
  const std::string unsupported = code_string(codes::kUnsupportedType);
  std::vector<CorruptCase> c;
  auto add = [&](std::string name, Bytes bytes, std::string code, std::string msg) {
    c.push_back({std::move(name), std::move(bytes), std::move(code), std::move(msg)});
  };

  // Header.
  add("empty-file", {}, bad, "truncated header");
  add("truncated-magic", {'G', 'G'}, bad, "truncated header");
  add("truncated-header", header(0x46554747, 3), bad, "truncated header tensor count");
  {
    Bytes b = header(0x46554747, 3);
    put_u64(b, 0);
    put_u32(b, 0);  // half of the metadata count
    add("truncated-kv-count", b, bad, "truncated header metadata count");
  }
  {
    RawGguf w = one_tensor();
    w.magic = 0x4c4d4747;  // "GGML"
    add("bad-magic", w.build(), bad, "bad magic");
  }
  {
    RawGguf w = one_tensor();
    w.version = 1;
    add("version-1", w.build(), bad, "version 1 is not supported");
  }
  {
    RawGguf w = one_tensor();
    w.version = 4;
    add("version-4", w.build(), bad, "unsupported GGUF version 4");
  }
  {
    RawGguf w = one_tensor();
    w.version = 0x03000000;
    add("big-endian", w.build(), bad, "big-endian");
  }
  {
    RawGguf w = one_tensor();
    w.kv_count = 1ull << 60;
    add("huge-kv-count", w.build(), bad, "metadata count 1152921504606846976 does not fit");
  }
  {
    RawGguf w = one_tensor();
    w.tensor_count = ~0ull;
    add("huge-tensor-count", w.build(), bad, "tensor count 18446744073709551615 does not fit");
  }
  {
    RawGguf w;
    w.kv_str("general.architecture", "llama");
    w.kv_count = 2;  // only one entry present
    add("kv-count-too-large", w.build(), bad, "truncated metadata key");
  }

  // Metadata.
  {
    RawGguf w;
    Bytes e;
    put_u64(e, 1ull << 40);
    const std::string key = "general.architecture";
    e.insert(e.end(), key.begin(), key.end());
    w.kv_raw(e);
    add("key-length-past-eof", w.build(), bad, "metadata key length 1099511627776 runs past end of file");
  }
  {
    RawGguf w;
    Bytes p;
    put_u64(p, 5000);
    p.insert(p.end(), {'a', 'b', 'c'});
    w.kv_typed("general.name", kString, p);
    add("string-length-past-eof", w.build(), bad, "string value length 5000 runs past end of file");
  }
  {
    RawGguf w;
    Bytes p;
    put_u64(p, ~0ull);
    w.kv_typed("general.name", kString, p);
    add("string-length-max", w.build(), bad, "runs past end of file");
  }
  {
    RawGguf w;
    w.kv_str("", "x");
    add("empty-key", w.build(), bad, "empty metadata key");
  }
  {
    RawGguf w;
    w.kv_typed("general.x", 13, Bytes{0, 0, 0, 0});
    add("unknown-value-type", w.build(), bad, "unknown metadata value type 13");
  }
  {
    RawGguf w;
    w.kv_typed("general.x", 0x80000000u, Bytes{0, 0, 0, 0});
    add("unknown-value-type-high", w.build(), bad, "unknown metadata value type 2147483648");
  }
  {
    RawGguf w;
    Bytes p;
    put_u32(p, 99);
    put_u64(p, 1);
    put_u32(p, 0);
    w.kv_typed("general.x", kArray, p);
    add("unknown-array-type", w.build(), bad, "unknown array element type 99");
  }
  {
    RawGguf w;
    Bytes p;
    put_u32(p, kU32);
    put_u64(p, 1ull << 61);
    put_u32(p, 0);
    w.kv_typed("general.x", kArray, p);
    add("huge-array-count", w.build(), bad, "array of 2305843009213693952 uint32 elements does not fit");
  }
  {
    RawGguf w;
    Bytes p;
    put_u32(p, kString);
    put_u64(p, 100000);
    put_str(p, "a");
    w.kv_typed("tokenizer.ggml.tokens", kArray, p);
    add("string-array-count-past-eof", w.build(), bad, "does not fit");
  }
  {
    RawGguf w;
    w.kv_typed("general.x", kArray, nested_array(4));
    add("arrays-nested-too-deep", w.build(), bad, "nested deeper than 3");
  }
  {
    RawGguf w;
    w.kv_typed("general.flag", kBool, Bytes{2});
    add("bool-not-0-or-1", w.build(), bad, "bool value 2");
  }
  {
    RawGguf w;
    w.kv_typed("llama.block_count", kU32, Bytes{5, 0});
    add("truncated-value", w.build(), bad, "truncated uint32 value");
  }
  {
    RawGguf w = one_tensor();
    w.kv_str("general.architecture", "qwen2");
    add("duplicate-key", w.build(), bad, "duplicate metadata key 'general.architecture'");
  }
  {
    RawGguf w = one_tensor();
    w.alignment = 48;
    w.kv_u32("general.alignment", 48);
    add("alignment-not-power-of-two", w.build(), bad, "general.alignment 48 is not a power of two");
  }
  {
    RawGguf w = one_tensor();
    w.kv_u32("general.alignment", 0);
    add("alignment-zero", w.build(), bad, "general.alignment 0 is not a power of two");
  }
  {
    RawGguf w = one_tensor();
    w.kv_i32("general.alignment", -32);
    add("alignment-negative", w.build(), bad, "general.alignment -32 is not a power of two");
  }
  {
    RawGguf w = one_tensor();
    w.kv_str("general.alignment", "32");
    add("alignment-string", w.build(), bad, "general.alignment has type string");
  }

  // Tensor infos.
  {
    RawGguf w = one_tensor();
    w.tensor_count = 2;  // the second info is read from the zero padding
    add("tensor-count-too-large", w.build(), bad, "has n_dims 0");
  }
  {
    RawGguf w = one_tensor(std::string(65, 'n'));
    add("tensor-name-too-long", w.build(), bad, "tensor name length 65 exceeds the limit of 64");
  }
  {
    RawGguf w = one_tensor();
    w.tensor("w", {8}, kF32T);
    add("duplicate-tensor", w.build(), bad, "duplicate tensor 'w'");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {}, kF32T, 0), 32);
    add("n-dims-0", w.build(), bad, "tensor 'w' has n_dims 0");
  }
  {
    RawGguf w;
    w.tensor("w", {1, 1, 1, 1, 8}, kF32T);
    add("n-dims-5", w.build(), bad, "tensor 'w' has n_dims 5");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {8}, kF32T, 0, 0xffffffffu), 32);
    add("n-dims-huge", w.build(), bad, "has n_dims 4294967295");
  }
  {
    RawGguf w;
    w.tensor("w", {8, 0}, kF32T);
    add("dim-zero", w.build(), bad, "invalid dimension ne[1] = 0");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {~0ull}, kF32T, 0), 32);
    add("dim-negative", w.build(), bad, "invalid dimension ne[0] = 18446744073709551615");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {1ull << 32, 1ull << 32}, kF32T, 0), 32);
    add("element-count-overflow", w.build(), bad, "tensor 'w' element count overflows");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {1ull << 62}, kF32T, 0), 32);
    add("byte-size-overflow", w.build(), bad, "tensor 'w' byte size overflows");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {33, 2}, kQ8_0T, 0), 128);
    add("row-not-block-multiple", w.build(), bad,
        "row of 33 elements is not a multiple of the q8_0 block size 32");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {32}, 42, 0), 64);
    add("unknown-tensor-type", w.build(), unsupported, "unsupported tensor type id 42 for tensor 'w'");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {32}, 4, 0), 64);
    add("removed-tensor-type", w.build(), unsupported, "unsupported tensor type id 4 for tensor 'w'");
  }
  {
    RawGguf w;
    w.tensor("w", {32}, kQ8_1T);
    add("activation-type-q8_1", w.build(), unsupported,
        "unsupported tensor type q8_1 (id 9, not a weight type)");
  }
  {
    RawGguf w;
    w.tensor("w", {256}, kQ8_KT);
    add("activation-type-q8_K", w.build(), unsupported, "unsupported tensor type q8_K (id 15");
  }
  {
    RawGguf w;
    w.tensor("a", {8}, kF32T).tensor("b", {8}, kF32T, 16);
    add("misaligned-offset", w.build(), bad,
        "tensor 'b' data offset 16 is not a multiple of the alignment 32");
  }
  {
    RawGguf w;
    w.kv_u32("general.alignment", 64);
    w.alignment = 64;
    w.tensor("a", {8}, kF32T).tensor("b", {8}, kF32T, 32);
    add("misaligned-offset-custom-alignment", w.build(), bad, "not a multiple of the alignment 64");
  }
  {
    RawGguf w;
    w.tensor("a", {8}, kF32T).tensor("b", {16}, kF32T);
    w.drop_tail = 4;
    add("tensor-data-past-eof", w.build(), bad, "tensor 'b' data [32, +64) runs past end of file");
  }
  {
    RawGguf w;
    w.tensor("a", {8}, kF32T).tensor_raw(tensor_info("b", {8}, kF32T, 1ull << 40));
    add("tensor-offset-past-eof", w.build(), bad,
        "tensor 'b' data [1099511627776, +32) runs past end of file");
  }
  {
    RawGguf w;
    w.tensor_raw(tensor_info("w", {8}, kF32T, ~0ull - 31), 32);
    add("tensor-offset-overflow", w.build(), bad,
        "tensor 'w' data [18446744073709551584, +32) runs past end of file");
  }
  {
    RawGguf w;
    w.tensor("a", {16}, kF32T).tensor("b", {8}, kF32T, 32);
    add("overlapping-tensors", w.build(), bad, "tensor 'b' at data offset 32 overlaps tensor 'a'");
  }
  {
    RawGguf w;
    w.tensor("a", {8}, kF32T).tensor("b", {8}, kF32T, 0);
    add("same-offset-tensors", w.build(), bad, "overlaps tensor");
  }
  {
    // Metadata, then one tensor info cut inside its offset field.
    RawGguf w;
    w.kv_str("general.architecture", "llama");
    w.tensor_count = 1;
    Bytes img = w.build();
    const Bytes info = tensor_info("w", {8}, kF32T, 0);
    img.insert(img.end(), info.begin(), info.end() - 4);
    add("truncated-tensor-info", img, bad, "truncated tensor offset");
  }
  {
    // Metadata and a complete tensor info, then EOF before the (aligned) data section.
    RawGguf w;
    w.kv_str("general.architecture", "llama");
    w.tensor_count = 1;
    Bytes img = w.build();
    const Bytes info = tensor_info("w", {8}, kF32T, 0);
    img.insert(img.end(), info.begin(), info.end());
    add("data-section-past-eof", img, bad, "starts past end of file");
  }
  {
    RawGguf w = minimal_model();
    Bytes img = w.build();
    img[24 + 8 + 20] ^= 0xff;  // first key's value type (after "general.architecture")
    add("flipped-value-type", img, bad, "unknown metadata value type");
  }
  return c;
}

std::vector<ValidSeed> valid_seeds() {
  std::vector<ValidSeed> s;
  s.push_back({"minimal-model", minimal_model().build()});
  {
    RawGguf w;
    w.version = 2;
    w.kv_str("general.architecture", "llama").kv_str("tokenizer.ggml.model", "gpt2");
    w.kv_str_array("tokenizer.ggml.tokens", {"a", "b", "ab", "\xc4\xa0"});
    w.kv_str_array("tokenizer.ggml.merges", {"a b"});
    s.push_back({"vocab-only-v2", w.build()});
  }
  {
    RawGguf w;
    w.kv_u32("general.alignment", 64);
    w.alignment = 64;
    w.kv_typed("general.nested", kArray, nested_array(3));
    w.kv_u64("general.u64", 1ull << 40).kv_f32("general.f", 0.5f);
    w.tensor("q4", {64, 2}, 2)
        .tensor("q2k", {256}, 10)
        .tensor("q6k", {256}, 14)
        .tensor("bf", {4, 2, 2, 2}, 30);
    s.push_back({"mixed-types-align64", w.build()});
  }
  return s;
}

}  // namespace a3s::power::gguf::testing
