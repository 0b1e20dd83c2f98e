#include "engine/arch.h"

namespace a3s::power::engine {
namespace {

// Pre-norm decoder block shared by llama-like architectures.
constexpr std::array<LayerTensorSpec, kLayerRoles> llama_block(Presence qkv_bias, Presence qk_norm = Presence::Absent,
                                                                Presence split_qkv = Presence::Required,
                                                                Presence fused_qkv = Presence::Absent,
                                                                Presence ffn_gate = Presence::Required) {
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
  }};
}

ArchSpec llama() {
  // LLaMA 1/2/3, Mistral, TinyLlama, …: QKV biases when the file has them (as llama.cpp), and the
  // Llama 3.1+ rope_freqs tensor.
  ArchSpec a{"llama", RopeStyle::Norm, 10000.0f, llama_block(Presence::Optional)};
  a.rope_freqs = "rope_freqs.weight";
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

const ArchSpec kArchs[] = {
    llama(),
    // Qwen2 / Qwen2.5: biases on Q, K and V; NEOX RoPE.
    {"qwen2", RopeStyle::Neox, 10000.0f, llama_block(Presence::Required)},
    // Qwen3 (dense): no QKV biases; RMSNorm over each query and key head before RoPE; NEOX RoPE.
    {"qwen3", RopeStyle::Neox, 10000.0f, llama_block(Presence::Absent, Presence::Required)},
    phi3(),
};

}  // namespace

const ArchSpec* find_arch(std::string_view name) {
  for (const ArchSpec& a : kArchs)
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view supported_archs() { return "llama, qwen2, qwen3, phi3"; }

}  // namespace a3s::power::engine
