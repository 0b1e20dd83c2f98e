// Building GGUF model files in tests: the one place the tests write GGUF.
//
// On top of src's GGUF writer (model/gguf/gguf_writer.h, gguf::Writer):
// - write_model_copy(): a copy of a model with metadata keys set and tensors added or left out.
// - Derived models (DerivedModel, derived_models(), find_derived_model(), write_derived_model()):
//   copies of the shared tiny models that exercise features they do not carry (Llama 3.1+
//   `rope_freqs`, linear and YaRN rope scaling) without committing model files; the llama.cpp
//   reference outputs for them are committed in tests/data/reference/ (see its README). Every
//   derived model is fully determined by its entry in derived_models() and its base file, so the
//   files the tests write are byte-identical to the ones the references were made from
//   (tests/integration/parity/write_derived_models writes them all to a directory).
// - MetadataGguf: an in-memory GGUF with metadata only (synthetic vocabularies).
//
// Byte layers, for what the writer refuses to produce:
// - patch_*(): a copy of a model's bytes with a metadata value or a tensor's type, shape or name
//   changed in place, to exercise the loader's error paths.
// - RawGguf (namespace gguf::testing, implemented in gguf_builder.cpp): deliberately malformed
//   images for the reader's rejection tests and the committed corrupt corpus.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/gguf/gguf_file.h"
#include "model/gguf/gguf_writer.h"
#include "support/temp_dir.h"
#include "support/test_data.h"

namespace a3s::power::testing {

// --- Whole files as bytes, and the byte patches of existing models. ---

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// Offset just past the first GGUF string (u64 length + bytes) equal to `s`.
inline size_t after_gguf_string(const std::vector<uint8_t>& b, const std::string& s) {
  std::vector<uint8_t> pat(8 + s.size());
  const uint64_t n = s.size();
  std::memcpy(pat.data(), &n, 8);
  std::memcpy(pat.data() + 8, s.data(), s.size());
  for (size_t i = 0; i + pat.size() <= b.size(); ++i)
    if (std::memcmp(b.data() + i, pat.data(), pat.size()) == 0) return i + pat.size();
  throw std::runtime_error("string not found in GGUF: " + s);
}

// Replaces the string value of metadata `key` by `value` of the same length.
inline void patch_string_value(std::vector<uint8_t>& b, const std::string& key, const std::string& value) {
  size_t p = after_gguf_string(b, key) + 4 /*type*/ + 8 /*len*/;
  std::memcpy(b.data() + p, value.data(), value.size());
}

// Tensor info fields after the name: n_dims u32, ne[n_dims] u64, type u32, offset u64.
inline void patch_tensor_type(std::vector<uint8_t>& b, const std::string& tensor, uint32_t type) {
  size_t p = after_gguf_string(b, tensor);
  uint32_t n_dims;
  std::memcpy(&n_dims, b.data() + p, 4);
  std::memcpy(b.data() + p + 4 + 8 * n_dims, &type, 4);
}

inline void patch_tensor_dim(std::vector<uint8_t>& b, const std::string& tensor, int dim, uint64_t value) {
  size_t p = after_gguf_string(b, tensor);
  std::memcpy(b.data() + p + 4 + 8 * static_cast<size_t>(dim), &value, 8);
}

// Renames a tensor (same length).
inline void patch_tensor_name(std::vector<uint8_t>& b, const std::string& from, const std::string& to) {
  size_t p = after_gguf_string(b, from) - from.size();
  std::memcpy(b.data() + p, to.data(), to.size());
}

// --- Copies and derived models, written with gguf::Writer. ---

struct AddedTensor {
  std::string name;
  std::vector<float> values;  // a 1-D F32 tensor
};

struct DerivedModel {
  std::string name = {};  // file stem
  std::string base = {};  // stem of the shared model it is derived from (../shared/testdata/models)
  std::vector<std::pair<std::string, gguf::Value>> keys = {};  // set (or replaced) in the copy
  std::vector<AddedTensor> tensors = {};                       // appended after the base's tensors
  std::vector<std::string> removed = {};                       // base tensors left out
  // When set: the copy's general.architecture, with every "<base architecture>." key renamed to
  // "<arch>." (a model of another architecture on the same weights).
  std::string arch = {};
};

inline gguf::Value string_value(std::string s) { return {gguf::ValueType::STRING, std::move(s)}; }
inline gguf::Value f32_value(float f) { return {gguf::ValueType::FLOAT32, static_cast<double>(f)}; }
inline gguf::Value u32_value(uint32_t u) { return {gguf::ValueType::UINT32, static_cast<uint64_t>(u)}; }

// Copies the GGUF file `base_path` to `out_path` with `keys` set (or replaced, in order) and `tensors`
// appended, without the tensors named in `removed`; everything else is copied unchanged.
// With `arch` set, the copy is of that architecture: general.architecture and the base's
// "<architecture>." keys are renamed.
inline void write_model_copy(const std::string& base_path, const std::vector<std::pair<std::string, gguf::Value>>& keys,
                             const std::vector<AddedTensor>& tensors, const std::vector<std::string>& removed,
                             const std::string& out_path, const std::string& arch = {}) {
  std::shared_ptr<const gguf::File> base = gguf::File::open(base_path);
  gguf::Writer w(base->alignment());
  const std::string old_prefix = base->get_string("general.architecture").value_or("") + ".";
  for (const std::string& k : base->keys()) {
    if (k == "general.alignment") continue;
    if (!arch.empty() && k == "general.architecture") {
      w.set(k, string_value(arch));
    } else if (!arch.empty() && k.rfind(old_prefix, 0) == 0) {
      w.set(arch + "." + k.substr(old_prefix.size()), *base->find(k));
    } else {
      w.set(k, *base->find(k));
    }
  }
  for (const auto& [k, v] : keys) w.set(k, v);
  auto kept = [&](const gguf::TensorInfo& t) {
    for (const std::string& r : removed)
      if (r == t.name) return false;
    return true;
  };
  for (const gguf::TensorInfo& t : base->tensors())
    if (kept(t)) w.add_tensor(t.name, t.type, std::span<const int64_t>(t.ne.data(), t.n_dims));
  for (const AddedTensor& t : tensors) {
    const int64_t ne[1] = {static_cast<int64_t>(t.values.size())};
    w.add_tensor(t.name, TensorType::F32, ne);
  }
  w.begin(out_path);
  for (const gguf::TensorInfo& t : base->tensors())
    if (kept(t)) w.append(std::span<const uint8_t>(base->tensor_data(t), t.size_bytes));
  for (const AddedTensor& t : tensors)
    w.append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(t.values.data()),
                                      t.values.size() * sizeof(float)));
  w.finish();
}

// Copies `base_path` to `out_path` with general.name = d.name and d's keys and tensors (and without
// d.removed).
inline void write_derived_model(const std::string& base_path, const DerivedModel& d, const std::string& out_path) {
  std::vector<std::pair<std::string, gguf::Value>> keys = {{"general.name", string_value(d.name)}};
  keys.insert(keys.end(), d.keys.begin(), d.keys.end());
  write_model_copy(base_path, keys, d.tensors, d.removed, out_path, d.arch);
}

// Per-pair RoPE divisors growing geometrically from 1 (the fastest pair) to 40 (the slowest): large
// enough that a model which ignored them would answer differently within a few tokens.
inline std::vector<float> test_rope_freqs(int n_pairs) {
  std::vector<float> f(static_cast<size_t>(n_pairs));
  for (int k = 0; k < n_pairs; ++k)
    f[static_cast<size_t>(k)] = std::pow(40.0f, static_cast<float>(k) / static_cast<float>(n_pairs - 1));
  return f;
}

// Per-head RMSNorm weights between 0.5 and 1.5, a different pattern for each `salt`: far enough from
// 1 that a model which skipped the norm, or applied it to the wrong head, would answer differently.
inline std::vector<float> test_head_norm(int head_dim, int salt) {
  std::vector<float> w(static_cast<size_t>(head_dim));
  for (int i = 0; i < head_dim; ++i)
    w[static_cast<size_t>(i)] = 0.5f + static_cast<float>((7 * i + 5 * salt) % 11) / 10.0f;
  return w;
}

// The derived models with committed llama.cpp references. The shared tiny models have head size
// 32 (n_rot 32, 16 rotary pairs).
inline const std::vector<DerivedModel>& derived_models() {
  static const std::vector<DerivedModel> all = [] {
    std::vector<DerivedModel> v;
    for (const char* base : {"tiny-llama-f32", "tiny-llama-F16", "tiny-llama-Q4_K_M"})
      v.push_back({std::string(base) + "-rope-freqs", base, {}, {{"rope_freqs.weight", test_rope_freqs(16)}}});
    v.push_back({"tiny-llama-f32-rope-linear", "tiny-llama-f32",
                 {{"llama.rope.scaling.type", string_value("linear")}, {"llama.rope.scaling.factor", f32_value(4.0f)}},
                 {}});
    // Qwen3 on tiny-qwen2's weights: no QKV biases, per-head Q/K RMSNorm weights (head size 32).
    for (const char* type : {"f32", "F16", "Q8_0", "Q4_K_M"}) {
      DerivedModel d{std::string("tiny-qwen3-") + type, std::string("tiny-qwen2-") + type};
      d.arch = "qwen3";
      for (int il = 0; il < 3; ++il) {
        const std::string p = "blk." + std::to_string(il) + ".";
        for (const char* b : {"attn_q.bias", "attn_k.bias", "attn_v.bias"}) d.removed.push_back(p + b);
        d.tensors.push_back({p + "attn_q_norm.weight", test_head_norm(32, 2 * il)});
        d.tensors.push_back({p + "attn_k_norm.weight", test_head_norm(32, 2 * il + 1)});
      }
      v.push_back(std::move(d));
    }
    for (const char* arch : {"llama", "qwen2"}) {
      const std::string a = arch;
      v.push_back({"tiny-" + a + "-f32-rope-yarn", "tiny-" + a + "-f32",
                   {{a + ".rope.scaling.type", string_value("yarn")},
                    {a + ".rope.scaling.factor", f32_value(4.0f)},
                    {a + ".rope.scaling.original_context_length", u32_value(64)}},
                   {}});
    }
    return v;
  }();
  return all;
}

inline const DerivedModel* find_derived_model(const std::string& name) {
  for (const DerivedModel& d : derived_models())
    if (d.name == name) return &d;
  return nullptr;
}

// The start of a SentencePiece ("llama") vocabulary: <unk> (type 2), <s> and </s> (control, type 3), then
// the 256 byte tokens <0x00>..<0xFF> (type 6), all with score 0; ids 0..258. Synthetic vocabularies
// append their pieces and special tokens after these.
struct SpmVocabulary {
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<float> scores = {0, 0, 0};
  std::vector<int32_t> types = {2, 3, 3};
  SpmVocabulary() {
    char buf[8];
    for (int b = 0; b < 256; ++b) {
      std::snprintf(buf, sizeof buf, "<0x%02X>", b);
      add(buf, 0, 6);
    }
  }
  void add(const std::string& text, float score, int32_t type) {
    tokens.push_back(text);
    scores.push_back(score);
    types.push_back(type);
  }
};

// A GGUF image with metadata only (no tensors): the entries are kept in order, then written by
// gguf::Writer and parsed from memory by build().
class MetadataGguf {
 public:
  MetadataGguf& str(const std::string& key, const std::string& v) { return set(key, {gguf::ValueType::STRING, v}); }
  MetadataGguf& u32(const std::string& key, uint32_t v) {
    return set(key, {gguf::ValueType::UINT32, static_cast<uint64_t>(v)});
  }
  MetadataGguf& boolean(const std::string& key, bool v) { return set(key, {gguf::ValueType::BOOL, v}); }
  MetadataGguf& strs(const std::string& key, const std::vector<std::string>& v) {
    gguf::Array a{gguf::ValueType::STRING, {}};
    for (const auto& s : v) a.items.push_back({gguf::ValueType::STRING, s});
    return set(key, {gguf::ValueType::ARRAY, std::move(a)});
  }
  MetadataGguf& f32s(const std::string& key, const std::vector<float>& v) {
    gguf::Array a{gguf::ValueType::FLOAT32, {}};
    for (float f : v) a.items.push_back({gguf::ValueType::FLOAT32, static_cast<double>(f)});
    return set(key, {gguf::ValueType::ARRAY, std::move(a)});
  }
  MetadataGguf& i32s(const std::string& key, const std::vector<int32_t>& v) {
    gguf::Array a{gguf::ValueType::INT32, {}};
    for (int32_t i : v) a.items.push_back({gguf::ValueType::INT32, static_cast<int64_t>(i)});
    return set(key, {gguf::ValueType::ARRAY, std::move(a)});
  }
  MetadataGguf& set(const std::string& key, gguf::Value v) {
    entries_.emplace_back(key, std::move(v));
    return *this;
  }

  std::shared_ptr<gguf::File> build() const {
    TempDir dir("a3s-gguf");
    const std::string path = dir.file("metadata.gguf");
    gguf::Writer w;
    for (const auto& [k, v] : entries_) w.set(k, v);
    w.begin(path);
    w.finish();
    auto bytes = std::make_shared<std::vector<uint8_t>>(read_bytes(path));
    return gguf::File::from_memory(std::span<const uint8_t>(bytes->data(), bytes->size()), "synthetic", bytes);
  }

 private:
  std::vector<std::pair<std::string, gguf::Value>> entries_;
};

}  // namespace a3s::power::testing

namespace a3s::power::gguf::testing {

// --- The raw byte layer: deliberately malformed images. ---

using Bytes = std::vector<uint8_t>;

// Little-endian encoders.
void put_u8(Bytes& b, uint8_t v);
void put_u16(Bytes& b, uint16_t v);
void put_u32(Bytes& b, uint32_t v);
void put_u64(Bytes& b, uint64_t v);
void put_f32(Bytes& b, float v);
void put_str(Bytes& b, std::string_view s);  // u64 length + bytes

// GGUF value type ids (docs/gguf.md).
enum : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12,
};

// A GGUF image assembled field by field: well-formed by default, but any field can be corrupted
// (raw metadata entries, raw tensor infos, header counts, offsets, truncation).
class RawGguf {
 public:
  uint32_t magic = 0x46554747;  // "GGUF"
  uint32_t version = 3;
  std::optional<uint64_t> tensor_count;  // overrides the real count in the header
  std::optional<uint64_t> kv_count;      // overrides the real count in the header
  uint64_t alignment = 32;               // padding used for the data section and automatic offsets
  uint64_t extra_data = 0;               // zero bytes appended after the last tensor
  uint64_t drop_tail = 0;                // bytes cut from the end of the finished image

  // Metadata entries.
  RawGguf& kv_u32(std::string_view key, uint32_t v);
  RawGguf& kv_i32(std::string_view key, int32_t v);
  RawGguf& kv_u64(std::string_view key, uint64_t v);
  RawGguf& kv_f32(std::string_view key, float v);
  RawGguf& kv_bool(std::string_view key, bool v);
  RawGguf& kv_str(std::string_view key, std::string_view v);
  RawGguf& kv_str_array(std::string_view key, const std::vector<std::string>& v);
  RawGguf& kv_f32_array(std::string_view key, const std::vector<float>& v);
  RawGguf& kv_i32_array(std::string_view key, const std::vector<int32_t>& v);
  // key + value type id + raw payload bytes (anything, valid or not).
  RawGguf& kv_typed(std::string_view key, uint32_t type, const Bytes& payload);
  // A complete raw entry (key included), counted as one entry.
  RawGguf& kv_raw(const Bytes& entry);

  // Tensor infos. `offset` nullopt: placed after the previous tensor at the next aligned offset.
  // Data bytes are filled with a repeating pattern sized by the type's row size (unknown types: 0).
  RawGguf& tensor(std::string_view name, std::vector<uint64_t> ne, uint32_t type,
                     std::optional<uint64_t> offset = std::nullopt);
  // A complete raw tensor info, counted as one tensor, with `data_bytes` of data reserved for it.
  RawGguf& tensor_raw(const Bytes& info, uint64_t data_bytes = 0);

  Bytes build() const;

 private:
  struct Tensor {
    Bytes info_prefix;  // name, n_dims, ne, type (offset is appended at build time)
    std::optional<uint64_t> offset;
    uint64_t size = 0;
    bool raw = false;
  };
  uint64_t n_kv_ = 0;
  Bytes kv_;
  std::vector<Tensor> tensors_;
};

// A minimal valid model-like image: architecture and a few hyper-parameters, a 4-token vocabulary
// and three small tensors (F32, F16, Q8_0).
RawGguf minimal_model();

}  // namespace a3s::power::gguf::testing
