#include "support/gguf_builder.h"

#include <algorithm>
#include <cstring>

#include "model/gguf/tensor_type.h"

namespace a3s::power::gguf::testing {

void put_u8(Bytes& b, uint8_t v) {
  b.push_back(v);
}
void put_u16(Bytes& b, uint16_t v) {
  for (int i = 0; i < 2; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_u32(Bytes& b, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_u64(Bytes& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_f32(Bytes& b, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_u32(b, bits);
}
void put_str(Bytes& b, std::string_view s) {
  put_u64(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}

RawGguf& RawGguf::kv_typed(std::string_view key, uint32_t type, const Bytes& payload) {
  Bytes e;
  put_str(e, key);
  put_u32(e, type);
  e.insert(e.end(), payload.begin(), payload.end());
  return kv_raw(e);
}

RawGguf& RawGguf::kv_raw(const Bytes& entry) {
  kv_.insert(kv_.end(), entry.begin(), entry.end());
  ++n_kv_;
  return *this;
}

namespace {

// The bytes `put` encodes `v` as.
template <typename T>
Bytes encoded(void (*put)(Bytes&, T), T v) {
  Bytes p;
  put(p, v);
  return p;
}

}  // namespace

RawGguf& RawGguf::kv_u32(std::string_view key, uint32_t v) { return kv_typed(key, kU32, encoded(put_u32, v)); }
RawGguf& RawGguf::kv_i32(std::string_view key, int32_t v) {
  return kv_typed(key, kI32, encoded(put_u32, static_cast<uint32_t>(v)));
}
RawGguf& RawGguf::kv_u64(std::string_view key, uint64_t v) { return kv_typed(key, kU64, encoded(put_u64, v)); }
RawGguf& RawGguf::kv_f32(std::string_view key, float v) { return kv_typed(key, kF32, encoded(put_f32, v)); }
RawGguf& RawGguf::kv_bool(std::string_view key, bool v) {
  return kv_typed(key, kBool, Bytes{static_cast<uint8_t>(v ? 1 : 0)});
}
RawGguf& RawGguf::kv_str(std::string_view key, std::string_view v) {
  Bytes p;
  put_str(p, v);
  return kv_typed(key, kString, p);
}
RawGguf& RawGguf::kv_str_array(std::string_view key, const std::vector<std::string>& v) {
  Bytes p;
  put_u32(p, kString);
  put_u64(p, v.size());
  for (const auto& s : v) put_str(p, s);
  return kv_typed(key, kArray, p);
}
RawGguf& RawGguf::kv_f32_array(std::string_view key, const std::vector<float>& v) {
  Bytes p;
  put_u32(p, kF32);
  put_u64(p, v.size());
  for (float f : v) put_f32(p, f);
  return kv_typed(key, kArray, p);
}
RawGguf& RawGguf::kv_i32_array(std::string_view key, const std::vector<int32_t>& v) {
  Bytes p;
  put_u32(p, kI32);
  put_u64(p, v.size());
  for (int32_t i : v) put_u32(p, static_cast<uint32_t>(i));
  return kv_typed(key, kArray, p);
}

RawGguf& RawGguf::tensor(std::string_view name, std::vector<uint64_t> ne, uint32_t type,
                               std::optional<uint64_t> offset) {
  Tensor t;
  put_str(t.info_prefix, name);
  put_u32(t.info_prefix, static_cast<uint32_t>(ne.size()));
  for (uint64_t d : ne) put_u64(t.info_prefix, d);
  put_u32(t.info_prefix, type);
  t.offset = offset;
  if (type_info(type) && !ne.empty()) {
    uint64_t rows = 1;
    for (size_t i = 1; i < ne.size(); ++i) rows *= ne[i];
    const auto rs = row_size(static_cast<TensorType>(type), static_cast<int64_t>(ne[0]));
    t.size = rs ? *rs * rows : 0;
  }
  tensors_.push_back(std::move(t));
  return *this;
}

RawGguf& RawGguf::tensor_raw(const Bytes& info, uint64_t data_bytes) {
  Tensor t;
  t.info_prefix = info;
  t.size = data_bytes;
  t.raw = true;
  tensors_.push_back(std::move(t));
  return *this;
}

Bytes RawGguf::build() const {
  const auto align_up = [&](uint64_t v) { return (v + alignment - 1) / alignment * alignment; };
  Bytes b;
  put_u32(b, magic);
  put_u32(b, version);
  put_u64(b, tensor_count.value_or(tensors_.size()));
  put_u64(b, kv_count.value_or(n_kv_));
  b.insert(b.end(), kv_.begin(), kv_.end());

  uint64_t next = 0;
  uint64_t data_end = 0;
  for (const auto& t : tensors_) {
    b.insert(b.end(), t.info_prefix.begin(), t.info_prefix.end());
    const uint64_t off = t.raw ? next : t.offset.value_or(next);
    if (!t.raw) put_u64(b, off);
    data_end = std::max(data_end, off + t.size);
    next = align_up(off + t.size);
  }
  if (!tensors_.empty()) {
    b.resize(align_up(b.size()), 0);
    const size_t data_start = b.size();
    b.resize(data_start + data_end + extra_data, 0);
    for (size_t i = data_start; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 131u + 7u);
  }
  b.resize(b.size() - std::min<uint64_t>(drop_tail, b.size()));
  return b;
}

RawGguf minimal_model() {
  RawGguf w;
  w.kv_str("general.architecture", "llama")
      .kv_str("general.name", "mini")
      .kv_u32("llama.block_count", 1)
      .kv_u32("llama.embedding_length", 32)
      .kv_f32("llama.attention.layer_norm_rms_epsilon", 1e-5f)
      .kv_bool("tokenizer.ggml.add_bos_token", true)
      .kv_str("tokenizer.ggml.model", "llama")
      .kv_str_array("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a"})
      .kv_f32_array("tokenizer.ggml.scores", {0.f, 0.f, 0.f, -1.5f})
      .kv_i32_array("tokenizer.ggml.token_type", {2, 3, 3, 1});
  w.tensor("token_embd.weight", {32, 4}, 0)   // F32
      .tensor("output_norm.weight", {32}, 1)  // F16
      .tensor("output.weight", {32, 4}, 8);   // Q8_0
  return w;
}

}  // namespace a3s::power::gguf::testing
