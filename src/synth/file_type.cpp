#include "synth/file_type.h"

#include <array>
#include <cctype>

#include "a3s/power/error.h"

namespace a3s::power::synth {
namespace {

struct FileTypeRow {
  FileType type;
  const char* name;
  uint32_t id;          // enum llama_ftype
  TensorType base;      // type of most matrices
};

constexpr std::array<FileTypeRow, 18> kRows = {{
    {FileType::F32, "F32", 0, TensorType::F32},
    {FileType::F16, "F16", 1, TensorType::F16},
    {FileType::BF16, "BF16", 32, TensorType::BF16},
    {FileType::Q4_0, "Q4_0", 2, TensorType::Q4_0},
    {FileType::Q4_1, "Q4_1", 3, TensorType::Q4_1},
    {FileType::Q5_0, "Q5_0", 8, TensorType::Q5_0},
    {FileType::Q5_1, "Q5_1", 9, TensorType::Q5_1},
    {FileType::Q8_0, "Q8_0", 7, TensorType::Q8_0},
    {FileType::Q2_K, "Q2_K", 10, TensorType::Q2_K},
    {FileType::Q3_K_S, "Q3_K_S", 11, TensorType::Q3_K},
    {FileType::Q3_K_M, "Q3_K_M", 12, TensorType::Q3_K},
    {FileType::Q4_K_S, "Q4_K_S", 14, TensorType::Q4_K},
    {FileType::Q4_K_M, "Q4_K_M", 15, TensorType::Q4_K},
    {FileType::Q5_K_S, "Q5_K_S", 16, TensorType::Q5_K},
    {FileType::Q5_K_M, "Q5_K_M", 17, TensorType::Q5_K},
    {FileType::Q6_K, "Q6_K", 18, TensorType::Q6_K},
    {FileType::IQ4_NL, "IQ4_NL", 25, TensorType::IQ4_NL},
    {FileType::IQ4_XS, "IQ4_XS", 30, TensorType::IQ4_XS},
}};

const FileTypeRow& row(FileType t) {
  for (const FileTypeRow& r : kRows)
    if (r.type == t) return r;
  return kRows[0];
}

bool is_float(FileType t) { return t == FileType::F32 || t == FileType::F16 || t == FileType::BF16; }

// llama.cpp's use_more_bits: the first and last eighth of the layers and every third one between.
bool use_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

bool is_k_quant(TensorType t) {
  return t == TensorType::Q2_K || t == TensorType::Q3_K || t == TensorType::Q4_K || t == TensorType::Q5_K ||
         t == TensorType::Q6_K;
}

TensorType row_fallback(TensorType t) {
  switch (t) {
    case TensorType::Q4_K: return TensorType::Q5_0;
    case TensorType::Q5_K: return TensorType::Q5_1;
    case TensorType::Q6_K: return TensorType::Q8_0;
    default: return TensorType::Q4_0;  // Q2_K, Q3_K
  }
}

TensorType mixed_type(FileType t, const TensorSlot& s) {
  const TensorType base = row(t).base;
  if (s.is_head) return t == FileType::Q8_0 ? TensorType::Q8_0 : TensorType::Q6_K;
  const int i = s.layer, n = s.n_layer;
  if (s.n_expert == 8) {  // llama-quant: "for the 8-expert model, bumping this to Q8_0 trades just ~128MB"
    if (s.kind == WeightKind::AttnK || s.kind == WeightKind::AttnV) return TensorType::Q8_0;
    if (s.kind == WeightKind::AttnOutput &&
        (t == FileType::Q2_K || t == FileType::Q3_K_S || t == FileType::Q3_K_M || t == FileType::Q4_K_S ||
         t == FileType::Q4_K_M || t == FileType::IQ4_NL || t == FileType::IQ4_XS))
      return TensorType::Q5_K;
  }
  switch (s.kind) {
    case WeightKind::AttnV:
      if (t == FileType::Q2_K) return s.n_gqa >= 4 ? TensorType::Q4_K : TensorType::Q3_K;
      if (t == FileType::Q3_K_M) return i < 2 ? TensorType::Q5_K : TensorType::Q4_K;
      if ((t == FileType::Q4_K_M || t == FileType::Q5_K_M) && use_more_bits(i, n)) return TensorType::Q6_K;
      if (t == FileType::Q4_K_S && i < 4) return TensorType::Q5_K;
      return base;
    case WeightKind::FfnDown:
      if (t == FileType::Q2_K) return TensorType::Q3_K;
      if (t == FileType::Q3_K_M) return i < n / 16 ? TensorType::Q5_K : TensorType::Q4_K;
      if ((t == FileType::Q4_K_M || t == FileType::Q5_K_M) && use_more_bits(i, n)) return TensorType::Q6_K;
      if (t == FileType::Q4_K_S && i < n / 8) return TensorType::Q5_K;
      return base;
    case WeightKind::AttnQkv:  // fused Q/K/V (phi3)
      if (t == FileType::Q3_K_M) return TensorType::Q4_K;
      if (t == FileType::Q4_K_M) return TensorType::Q5_K;
      if (t == FileType::Q5_K_M) return TensorType::Q6_K;
      return base;
    case WeightKind::AttnOutput:
      if (t == FileType::Q2_K) return TensorType::Q3_K;
      if (t == FileType::Q3_K_M) return TensorType::Q4_K;
      return base;
    default:
      return base;
  }
}

}  // namespace

FileType parse_file_type(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string names;
  for (const FileTypeRow& r : kRows) {
    if (upper == r.name) return r.type;
    names += names.empty() ? "" : ", ";
    names += r.name;
  }
  throw Error(codes::kInvalidArgument, "unknown --type (known: " + names + ")");
}

std::string file_type_name(FileType t) { return row(t).name; }
uint32_t file_type_id(FileType t) { return row(t).id; }

TensorType tensor_type(FileType t, const TensorSlot& s) {
  if (s.kind == WeightKind::Vector || s.kind == WeightKind::FfnGateInp) return TensorType::F32;
  if (is_float(t)) return row(t).base;
  TensorType chosen = mixed_type(t, s);
  if (chosen == TensorType::IQ4_XS && s.n_per_row % 256 != 0) chosen = TensorType::IQ4_NL;
  if (is_k_quant(chosen) && s.n_per_row % 256 != 0) chosen = row_fallback(chosen);
  if (s.n_per_row % 32 != 0) return TensorType::F16;  // no block type fits the row
  return chosen;
}

}  // namespace a3s::power::synth
