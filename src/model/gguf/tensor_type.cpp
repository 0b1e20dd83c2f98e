#include "model/gguf/tensor_type.h"

namespace a3s::power {
namespace {

constexpr int64_t kQK = 32;    // elements per block of the simple quants
constexpr int64_t kQKK = 256;  // elements per super-block of the K-quants

std::optional<TypeInfo> lookup(uint32_t id) {
  switch (static_cast<TensorType>(id)) {
    case TensorType::F32: return TypeInfo{"f32", 1, 4, true};
    case TensorType::F16: return TypeInfo{"f16", 1, 2, true};
    case TensorType::BF16: return TypeInfo{"bf16", 1, 2, true};
    case TensorType::Q4_0: return TypeInfo{"q4_0", kQK, 2 + kQK / 2, true};
    case TensorType::Q4_1: return TypeInfo{"q4_1", kQK, 4 + kQK / 2, true};
    case TensorType::Q5_0: return TypeInfo{"q5_0", kQK, 2 + 4 + kQK / 2, true};
    case TensorType::Q5_1: return TypeInfo{"q5_1", kQK, 4 + 4 + kQK / 2, true};
    case TensorType::Q8_0: return TypeInfo{"q8_0", kQK, 2 + kQK, true};
    case TensorType::Q8_1: return TypeInfo{"q8_1", kQK, 4 + kQK, false};
    case TensorType::Q2_K: return TypeInfo{"q2_K", kQKK, kQKK / 16 + kQKK / 4 + 4, true};
    case TensorType::Q3_K: return TypeInfo{"q3_K", kQKK, kQKK / 8 + kQKK / 4 + 12 + 2, true};
    case TensorType::Q4_K: return TypeInfo{"q4_K", kQKK, 4 + 12 + kQKK / 2, true};
    case TensorType::Q5_K: return TypeInfo{"q5_K", kQKK, 4 + 12 + kQKK / 8 + kQKK / 2, true};
    case TensorType::Q6_K: return TypeInfo{"q6_K", kQKK, kQKK / 2 + kQKK / 4 + kQKK / 16 + 2, true};
    case TensorType::Q8_K: return TypeInfo{"q8_K", kQKK, 4 + kQKK + kQKK / 16 * 2, false};
    case TensorType::IQ4_NL: return TypeInfo{"iq4_nl", kQK, 2 + kQK / 2, true};
    case TensorType::IQ4_XS: return TypeInfo{"iq4_xs", kQKK, 2 + 2 + kQKK / 64 + kQKK / 2, true};
  }
  return std::nullopt;
}

}  // namespace

std::optional<TypeInfo> type_info(uint32_t type_id) { return lookup(type_id); }

TypeInfo type_info(TensorType t) {
  return lookup(static_cast<uint32_t>(t)).value_or(TypeInfo{"unknown", 1, 0, false});
}

std::optional<size_t> row_size(TensorType t, int64_t n) {
  auto info = lookup(static_cast<uint32_t>(t));
  if (!info || n < 0 || n % info->block_size != 0) return std::nullopt;
  return static_cast<size_t>(n / info->block_size) * info->block_bytes;
}

std::string type_name(TensorType t) { return type_info(t).name; }

}  // namespace a3s::power
