// A small GGUF image builder for tests: writes well-formed files by default and lets a test corrupt
// any field (raw metadata entries, raw tensor infos, header counts, offsets, truncation).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::gguf::testing {

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

class GgufWriter {
 public:
  uint32_t magic = 0x46554747;  // "GGUF"
  uint32_t version = 3;
  std::optional<uint64_t> tensor_count;  // overrides the real count in the header
  std::optional<uint64_t> kv_count;      // overrides the real count in the header
  uint64_t alignment = 32;               // padding used for the data section and automatic offsets
  uint64_t extra_data = 0;               // zero bytes appended after the last tensor
  uint64_t drop_tail = 0;                // bytes cut from the end of the finished image

  // Metadata entries.
  GgufWriter& kv_u32(std::string_view key, uint32_t v);
  GgufWriter& kv_i32(std::string_view key, int32_t v);
  GgufWriter& kv_u64(std::string_view key, uint64_t v);
  GgufWriter& kv_f32(std::string_view key, float v);
  GgufWriter& kv_bool(std::string_view key, bool v);
  GgufWriter& kv_str(std::string_view key, std::string_view v);
  GgufWriter& kv_str_array(std::string_view key, const std::vector<std::string>& v);
  GgufWriter& kv_f32_array(std::string_view key, const std::vector<float>& v);
  GgufWriter& kv_i32_array(std::string_view key, const std::vector<int32_t>& v);
  // key + value type id + raw payload bytes (anything, valid or not).
  GgufWriter& kv_typed(std::string_view key, uint32_t type, const Bytes& payload);
  // A complete raw entry (key included), counted as one entry.
  GgufWriter& kv_raw(const Bytes& entry);

  // Tensor infos. `offset` nullopt: placed after the previous tensor at the next aligned offset.
  // Data bytes are filled with a repeating pattern sized by the type's row size (unknown types: 0).
  GgufWriter& tensor(std::string_view name, std::vector<uint64_t> ne, uint32_t type,
                     std::optional<uint64_t> offset = std::nullopt);
  // A complete raw tensor info, counted as one tensor, with `data_bytes` of data reserved for it.
  GgufWriter& tensor_raw(const Bytes& info, uint64_t data_bytes = 0);

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
GgufWriter minimal_model();

}  // namespace a3s::power::gguf::testing
