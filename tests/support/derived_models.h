// Test models derived from the shared tiny models: a copy of a base GGUF with metadata keys set
// and tensors added, written with src's GGUF writer. They exercise features the shared models do
// not carry (Llama 3.1+ `rope_freqs`, linear and YaRN rope scaling) without committing model files;
// the llama.cpp reference outputs for them are committed in tests/data/reference/ (see its README).
//
// Every derived model is fully determined by its entry in derived_models() and its base file, so
// the files the tests write are byte-identical to the ones the references were made from
// (tests/integration/parity/write_derived_models writes them all to a directory).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/gguf/gguf_file.h"
#include "model/gguf/gguf_writer.h"

namespace a3s::power::testing {

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
};

inline gguf::Value string_value(std::string s) { return {gguf::ValueType::STRING, std::move(s)}; }
inline gguf::Value f32_value(float f) { return {gguf::ValueType::FLOAT32, static_cast<double>(f)}; }
inline gguf::Value u32_value(uint32_t u) { return {gguf::ValueType::UINT32, static_cast<uint64_t>(u)}; }

// Copies `base_path` to `out_path` with d's keys and tensors (and without d.removed).
inline void write_derived_model(const std::string& base_path, const DerivedModel& d, const std::string& out_path) {
  std::shared_ptr<const gguf::File> base = gguf::File::open(base_path);
  gguf::Writer w(base->alignment());
  for (const std::string& k : base->keys())
    if (k != "general.alignment") w.set(k, *base->find(k));
  w.set_string("general.name", d.name);
  for (const auto& [k, v] : d.keys) w.set(k, v);
  auto kept = [&](const gguf::TensorInfo& t) {
    for (const std::string& r : d.removed)
      if (r == t.name) return false;
    return true;
  };
  for (const gguf::TensorInfo& t : base->tensors())
    if (kept(t)) w.add_tensor(t.name, t.type, std::span<const int64_t>(t.ne.data(), t.n_dims));
  for (const AddedTensor& t : d.tensors) {
    const int64_t ne[1] = {static_cast<int64_t>(t.values.size())};
    w.add_tensor(t.name, TensorType::F32, ne);
  }
  w.begin(out_path);
  for (const gguf::TensorInfo& t : base->tensors())
    if (kept(t)) w.append(std::span<const uint8_t>(base->tensor_data(t), t.size_bytes));
  for (const AddedTensor& t : d.tensors)
    w.append(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(t.values.data()),
                                      t.values.size() * sizeof(float)));
  w.finish();
}

// Per-pair RoPE divisors growing geometrically from 1 (the fastest pair) to 40 (the slowest): large
// enough that a model which ignored them would answer differently within a few tokens.
inline std::vector<float> test_rope_freqs(int n_pairs) {
  std::vector<float> f(static_cast<size_t>(n_pairs));
  for (int k = 0; k < n_pairs; ++k)
    f[static_cast<size_t>(k)] = std::pow(40.0f, static_cast<float>(k) / static_cast<float>(n_pairs - 1));
  return f;
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

}  // namespace a3s::power::testing
