#include "engine/arch.h"

namespace a3s::power::engine {
namespace {

// Pre-norm decoder block shared by llama-like architectures.
constexpr std::array<LayerTensorSpec, kLayerRoles> llama_block(Presence qkv_bias, Presence qk_norm = Presence::Absent,
                                                                Presence split_qkv = Presence::Required,
                                                                Presence fused_qkv = Presence::Absent,
                                                                Presence ffn_gate = Presence::Required,
                                                                Presence post_norms = Presence::Absent) {
  return {{
      {"attn_norm.weight", Presence::Required},
      {"attn_q.weight", split_qkv},
      {"attn_k.weight", split_qkv},
      {"attn_v.weight", split_qkv},
      {"attn_q.bias", qkv_bias},
      {"attn_k.bias", qkv_bias},
      {"attn_v.bias", qkv_bias},
      {"attn_output.weight", Presence::Required},
      {"ffn_norm.weight", Presence::Required},
      {"ffn_gate.weight", ffn_gate},
      {"ffn_up.weight", Presence::Required},
      {"ffn_down.weight", Presence::Required},
      {"attn_q_norm.weight", qk_norm},
      {"attn_k_norm.weight", qk_norm},
      {"attn_qkv.weight", fused_qkv},
      {"post_attention_norm.weight", post_norms},
      {"post_ffw_norm.weight", post_norms},
      {"ffn_gate_inp.weight", Presence::Optional},
      {"ffn_gate_exps.weight", Presence::Optional},
      {"ffn_up_exps.weight", Presence::Optional},
      {"ffn_down_exps.weight", Presence::Optional},
  }};
}

ArchSpec llama() {
  // LLaMA 1/2/3, Mistral, TinyLlama, …: QKV biases when the file has them (as llama.cpp), and the
  // Llama 3.1+ rope_freqs tensor.
  // Mixtral-layout experts (stacked *_exps tensors and a router) when llama.expert_count > 0.
  ArchSpec a{"llama", RopeStyle::Norm, 10000.0f, llama_block(Presence::Optional)};
  a.rope_freqs = "rope_freqs.weight";
  a.experts = Presence::Optional;
  return a;
}

ArchSpec qwen3moe() {
  // Qwen3-MoE: qwen3's attention (per-head Q/K norms, no biases) and routed experts in every block
  // (softmax router, top-k experts with renormalised weights, no shared expert).
  ArchSpec a{"qwen3moe", RopeStyle::Neox, 10000.0f, llama_block(Presence::Absent, Presence::Required)};
  a.experts = Presence::Required;
  return a;
}

ArchSpec phi3() {
  // Phi-3 / Phi-3.5 / Phi-4 (mini): Q, K and V fused into attn_qkv (or, in some conversions, separate),
  // gate and up fused into ffn_up, NEOX RoPE over rope.dimension_count (partial rotary in Phi-4-mini).
  // The load checks that a block has exactly one form of the QKV projection.
  ArchSpec a{"phi3", RopeStyle::Neox, 10000.0f,
             llama_block(Presence::Absent, Presence::Absent, Presence::Optional, Presence::Optional, Presence::Absent)};
  a.fused_gate_up = true;
  a.prescale_q = true;
  return a;
}

ArchSpec gemma3() {
  // Gemma 3 (text): per-head Q/K norms, post-attention and post-FFN norms, GeGLU, embeddings scaled by
  // sqrt(n_embd), local sliding-window layers (RoPE base rope.freq_base_swa, default 10000) between
  // global ones (every sliding_window_pattern-th layer, default 6), Q pre-scaled; tied head.
  ArchSpec a{"gemma3", RopeStyle::Neox, 10000.0f,
             llama_block(Presence::Absent, Presence::Required, Presence::Required, Presence::Absent,
                         Presence::Required, Presence::Required)};
  a.prescale_q = true;
  a.ffn_act = FfnActivation::GeluTanh;
  a.gemma = true;
  return a;
}

const ArchSpec kArchs[] = {
    llama(),
    // Qwen2 / Qwen2.5: biases on Q, K and V; NEOX RoPE.
    {"qwen2", RopeStyle::Neox, 10000.0f, llama_block(Presence::Required)},
    // Qwen3 (dense): no QKV biases; RMSNorm over each query and key head before RoPE; NEOX RoPE.
    {"qwen3", RopeStyle::Neox, 10000.0f, llama_block(Presence::Absent, Presence::Required)},
    qwen3moe(),
    phi3(),
    gemma3(),
};

// Every role once in the forward pass's use order.
constexpr bool use_order_is_complete() {
  for (int r = 0; r < kLayerRoles; ++r) {
    int seen = 0;
    for (LayerRole u : kLayerUseOrder) seen += static_cast<int>(u) == r ? 1 : 0;
    if (seen != 1) return false;
  }
  return true;
}
static_assert(use_order_is_complete(), "kLayerUseOrder must name every LayerRole once");

}  // namespace

const ArchSpec* find_arch(std::string_view name) {
  for (const ArchSpec& a : kArchs)
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view supported_archs() { return "llama, qwen2, qwen3, qwen3moe, phi3, gemma3"; }

}  // namespace a3s::power::engine
