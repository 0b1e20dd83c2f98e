#include "engine/arch.h"

namespace a3s::power::engine {
namespace {

constexpr LayerTensorSpec kNone{"", Presence::Absent};

// Pre-norm decoder block shared by llama-like architectures.
constexpr std::array<LayerTensorSpec, kLayerRoles> llama_block(bool qkv_bias) {
  const Presence bias = qkv_bias ? Presence::Required : Presence::Absent;
  return {{
      {"attn_norm.weight", Presence::Required},
      {"attn_q.weight", Presence::Required},
      {"attn_k.weight", Presence::Required},
      {"attn_v.weight", Presence::Required},
      qkv_bias ? LayerTensorSpec{"attn_q.bias", bias} : kNone,
      qkv_bias ? LayerTensorSpec{"attn_k.bias", bias} : kNone,
      qkv_bias ? LayerTensorSpec{"attn_v.bias", bias} : kNone,
      {"attn_output.weight", Presence::Required},
      {"ffn_norm.weight", Presence::Required},
      {"ffn_gate.weight", Presence::Required},
      {"ffn_up.weight", Presence::Required},
      {"ffn_down.weight", Presence::Required},
  }};
}

const ArchSpec kArchs[] = {
    // LLaMA 1/2/3, Mistral, TinyLlama, …: optional QKV biases are not used by this family.
    {"llama", RopeStyle::Norm, 10000.0f, llama_block(false)},
    // Qwen2 / Qwen2.5: biases on Q, K and V; NEOX RoPE.
    {"qwen2", RopeStyle::Neox, 10000.0f, llama_block(true)},
};

}  // namespace

const ArchSpec* find_arch(std::string_view name) {
  for (const ArchSpec& a : kArchs)
    if (a.name == name) return &a;
  return nullptr;
}

std::string_view supported_archs() { return "llama, qwen2"; }

}  // namespace a3s::power::engine
