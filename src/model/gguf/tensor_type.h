// Tensor element types as numbered in GGUF / ggml (`ggml_type`), with their block geometry.
//
// Source: ggml-org/llama.cpp `ggml/include/ggml.h` (enum ggml_type) and `ggml/src/ggml-common.h`
// (block layouts). A row of `n` elements of type t occupies `row_size(t, n)` bytes; n must be a
// multiple of `block_size(t)`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace a3s::power {

enum class TensorType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  // 4, 5 were Q4_2 / Q4_3 (removed from ggml)
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,  // activation-only type (dot products with Q4_1 / Q5_1)
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,  // activation-only type (dot products with the K-quants)
  IQ4_NL = 20,  // 4-bit indices into a fixed non-linear table, one fp16 scale per 32
  IQ4_XS = 23,  // IQ4_NL's table in 256-element super-blocks with 6-bit scales per 32
  BF16 = 30,
};

struct TypeInfo {
  const char* name;    // ggml name, e.g. "q4_K"
  int64_t block_size;  // elements per block
  size_t block_bytes;  // bytes per block
  bool weight_type;    // true if a model tensor may have this type (the engine can load it)
};

// Info for a type id as read from a file, or nullopt when the id is not a type we know.
std::optional<TypeInfo> type_info(uint32_t type_id);
TypeInfo type_info(TensorType t);  // {"unknown",1,0,false} for an unknown id

// Bytes of a row of n elements; nullopt when n is not a multiple of the block size.
std::optional<size_t> row_size(TensorType t, int64_t n);

std::string type_name(TensorType t);

}  // namespace a3s::power
