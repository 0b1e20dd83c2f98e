// Quantization mixes ("file types") for synthetic models: which tensor type each weight gets, by the
// rules llama.cpp's `llama-quantize` uses for the same file type (source: ggml-org/llama.cpp
// `src/llama-quant.cpp`, llama_tensor_get_type), so a synthetic file has the size and the type mix a
// real quantized model of that shape would have:
//   * 1-D tensors (norms, biases) stay F32;
//   * the output head (or token_embd when the embeddings are tied) is Q6_K for every quantized mix
//     except Q8_0;
//   * the _M / _S mixes give attn_v, ffn_down and attn_output more bits in some layers;
//   * a K-quant tensor whose rows are not a multiple of 256 falls back to a 32-block type
//     (Q4_K→Q5_0, Q5_K→Q5_1, Q6_K→Q8_0; Q2_K/Q3_K→Q4_0 where llama.cpp would use IQ4_NL, a type
//     this engine does not load);
//   * mixture of experts: the router (ffn_gate_inp) stays F32 in every file type (llama.cpp's
//     converter writes it F32 and llama-quantize leaves it); the expert tensors (ffn_{gate,up,down}_exps)
//     get the types of ffn_gate / ffn_up / ffn_down; a model of exactly 8 experts (llama-quant's
//     Mixtral rule) has attn_k and attn_v Q8_0, and attn_output Q5_K in the Q2_K…Q4_K_M and IQ4 mixes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/gguf/tensor_type.h"

namespace a3s::power::synth {

enum class FileType {
  F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
  Q2_K, Q3_K_S, Q3_K_M, Q4_K_S, Q4_K_M, Q5_K_S, Q5_K_M, Q6_K,
  IQ4_NL, IQ4_XS,
};

// "Q4_K_M", "q8_0", "f16", … (case-insensitive). Throws Error(codes::kInvalidArgument) listing the names.
FileType parse_file_type(std::string_view name);
std::string file_type_name(FileType t);
// llama.cpp's `general.file_type` number (enum llama_ftype).
uint32_t file_type_id(FileType t);

// What a tensor is in a transformer block or globally, for the mix rules.
// The expert tensors of a mixture of experts are FfnGate / FfnUp / FfnDown; FfnGateInp is its router.
enum class WeightKind {
  Vector, TokenEmbd, Output, AttnQ, AttnK, AttnV, AttnQkv, AttnOutput, FfnGate, FfnUp, FfnDown, FfnGateInp
};

struct TensorSlot {
  WeightKind kind;
  int layer = -1;          // block index for per-layer tensors
  int n_layer = 0;         // blocks in the model
  int64_t n_per_row = 0;   // ne[0]
  bool is_head = false;    // the output head (output.weight, or token_embd when tied)
  int n_gqa = 1;           // n_head / n_head_kv
  int n_expert = 0;        // experts per block (0: a dense model)
};

// The type of one tensor in a file of type t.
TensorType tensor_type(FileType t, const TensorSlot& slot);

}  // namespace a3s::power::synth
