// Per-architecture graph descriptions.
//
// Every supported architecture is one ArchSpec row: which tensors a block has (GGUF names, whether
// each is required), the RoPE style, and defaults for metadata the file may omit. The forward pass
// (forward.cpp) is written once against these roles, so adding an architecture that reuses the
// pre-norm attention + gated FFN block shape (qwen3, phi3, gemma2, …) is a new row plus, at most, a
// new role. Mixture-of-experts models replace the gated FFN by routed experts (ArchSpec::experts). Names and rope styles follow llama.cpp's `src/llama-arch.cpp` / `src/llama-model.cpp`.
#pragma once

#include <array>
#include <string_view>

namespace a3s::power::engine {

// How RoPE pairs the dimensions of a head. Norm: adjacent pairs (2i, 2i+1) (llama, GPT-J style).
// Neox: pairs (i, i + n_rot/2) (GPT-NeoX, qwen2, qwen3, phi3, gemma3).
enum class RopeStyle { Norm, Neox };

// Tensors of one transformer block, by role.
enum class LayerRole : int {
  AttnNorm = 0,  // [n_embd] RMSNorm weight before attention
  Wq,            // [n_embd, n_head*head_dim]
  Wk,            // [n_embd, n_head_kv*head_dim]
  Wv,            // [n_embd, n_head_kv*head_dim]
  Bq,            // [n_head*head_dim] bias of Wq
  Bk,            // [n_head_kv*head_dim]
  Bv,            // [n_head_kv*head_dim]
  Wo,            // [n_head*head_dim, n_embd] attention output projection
  FfnNorm,       // [n_embd] RMSNorm weight before the FFN
  FfnGate,       // [n_embd, n_ff]
  FfnUp,         // [n_embd, n_ff]; with ArchSpec::fused_gate_up [n_embd, 2*n_ff]: gate rows, then up rows
  FfnDown,       // [n_ff, n_embd]
  AttnQNorm,     // [head_dim] RMSNorm weight applied to each query head before RoPE (qwen3)
  AttnKNorm,     // [head_dim] RMSNorm weight applied to each key head before RoPE (qwen3)
  Wqkv,          // [n_embd, n_head*head_dim + 2*n_head_kv*head_dim] Q, K and V rows in one tensor (phi3)
  AttnPostNorm,  // [n_embd] RMSNorm weight on the attention output before the residual add (gemma3)
  FfnPostNorm,   // [n_embd] RMSNorm weight on the FFN output before the residual add (gemma3)
  // Mixture of experts (qwen3moe; llama files with experts, the Mixtral layout), in place of
  // FfnGate/FfnUp/FfnDown. The stacked expert tensors are 3-D: plane e (ne[1] rows) is expert e.
  FfnGateInp,    // [n_embd, n_expert] the router
  FfnGateExps,   // [n_embd, n_ff_exp, n_expert]
  FfnUpExps,     // [n_embd, n_ff_exp, n_expert]
  FfnDownExps,   // [n_ff_exp, n_embd, n_expert]
  Count
};
inline constexpr int kLayerRoles = static_cast<int>(LayerRole::Count);

// The order in which the forward pass (forward.cpp) reads a block's tensors: a streaming source
// prefetches each next one in this order, so the two must agree.
inline constexpr std::array<LayerRole, kLayerRoles> kLayerUseOrder = {
    LayerRole::AttnNorm,    LayerRole::Wqkv,      LayerRole::Wq,          LayerRole::Wk,
    LayerRole::Wv,          LayerRole::Bq,        LayerRole::Bk,          LayerRole::Bv,
    LayerRole::AttnQNorm,   LayerRole::AttnKNorm, LayerRole::Wo,          LayerRole::AttnPostNorm,
    LayerRole::FfnNorm,     LayerRole::FfnGateInp, LayerRole::FfnGateExps, LayerRole::FfnUpExps,
    LayerRole::FfnDownExps, LayerRole::FfnGate,   LayerRole::FfnUp,       LayerRole::FfnDown,
    LayerRole::FfnPostNorm,
};

enum class Presence { Absent, Optional, Required };

// The gated FFN's activation: silu(gate) * up (SwiGLU) or gelu_tanh(gate) * up (GeGLU, gemma).
enum class FfnActivation { Silu, GeluTanh };

struct LayerTensorSpec {
  const char* suffix;  // GGUF name is "blk.<il>." + suffix
  Presence presence;
};

struct ArchSpec {
  std::string_view name;  // general.architecture
  RopeStyle rope_style;
  float default_rope_base;
  std::array<LayerTensorSpec, kLayerRoles> layer;  // indexed by LayerRole
  // Global tensors: token embeddings, final norm, output head (optional: tied to token_embd).
  const char* token_embd = "token_embd.weight";
  const char* output_norm = "output_norm.weight";
  const char* output = "output.weight";
  // Per-pair RoPE frequency divisors [n_rot/2] (Llama 3.1+ scaling), optional; nullptr when the
  // architecture's graph has none (the tensor is then refused like any unused one).
  const char* rope_freqs = nullptr;
  // phi3: ffn_up holds the gate rows then the up rows (SwiGLU of the halves), there is no ffn_gate.
  bool fused_gate_up = false;
  // phi3, gemma3: Q is multiplied by the attention scale before attention (then rounded to fp16 for
  // q·k) and the scores are not scaled again, as llama.cpp's graphs for them do (HParams::q_scale).
  bool prescale_q = false;
  FfnActivation ffn_act = FfnActivation::Silu;
  // gemma3: token embeddings are multiplied by sqrt(n_embd); sliding-window layers with their own
  // RoPE base (HParams::n_swa, swa_period, rope_base_swa); final logit soft-capping when the file sets it.
  bool gemma = false;
  // Mixture-of-experts FFN: Absent (dense only), Optional (llama: experts when expert_count > 0),
  // Required (qwen3moe). A block has either the dense FFN or the experts, never both (HParams::n_expert).
  Presence experts = Presence::Absent;
};

// The FFN roles a block of a dense model has, and those of a mixture-of-experts model.
inline bool is_dense_ffn_role(LayerRole r) {
  return r == LayerRole::FfnGate || r == LayerRole::FfnUp || r == LayerRole::FfnDown;
}
inline bool is_expert_role(LayerRole r) {
  return r == LayerRole::FfnGateInp || r == LayerRole::FfnGateExps || r == LayerRole::FfnUpExps ||
         r == LayerRole::FfnDownExps;
}

// The spec for an architecture name, or nullptr when unsupported.
const ArchSpec* find_arch(std::string_view name);

// Comma-separated names of supported architectures (for error messages).
std::string_view supported_archs();

}  // namespace a3s::power::engine
