#include "synth/model_shape.h"

#include "a3s/power/error.h"

namespace a3s::power::synth {
namespace {

ModelShape llama(int n_embd, int n_layer, int n_head, int n_head_kv, int n_ff) {
  ModelShape s;
  s.arch = "llama";
  s.n_embd = n_embd;
  s.n_layer = n_layer;
  s.n_head = n_head;
  s.n_head_kv = n_head_kv;
  s.n_ff = n_ff;
  s.n_vocab = 32000;
  return s;
}

ModelShape qwen2_half_b() {
  ModelShape s;
  s.arch = "qwen2";
  s.n_embd = 896;
  s.n_layer = 24;
  s.n_head = 14;
  s.n_head_kv = 2;
  s.n_ff = 4864;
  s.n_vocab = 151936;
  s.n_ctx_train = 32768;
  s.rope_freq_base = 1000000.0f;
  s.rms_eps = 1e-6f;
  s.tied_embeddings = true;
  return s;
}

// Qwen3-0.6B's shape: a head size (128) larger than n_embd / n_head, tied embeddings.
ModelShape qwen3_0_6b() {
  ModelShape s;
  s.arch = "qwen3";
  s.n_embd = 1024;
  s.n_layer = 28;
  s.n_head = 16;
  s.n_head_kv = 8;
  s.head_dim = 128;
  s.n_ff = 3072;
  s.n_vocab = 151936;
  s.n_ctx_train = 40960;
  s.rope_freq_base = 1000000.0f;
  s.rms_eps = 1e-6f;
  s.tied_embeddings = true;
  return s;
}

// A few MB, for tests: the same features (GQA, head size beyond n_embd / n_head, Q/K norms).
ModelShape qwen3_tiny() {
  ModelShape s = qwen3_0_6b();
  s.n_embd = 128;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.head_dim = 64;
  s.n_ff = 384;
  s.n_vocab = 4096;
  s.n_ctx_train = 4096;
  return s;
}

// Phi-4-mini's shape (architecture phi3): GQA 24/8, partial rotary (96 of 128 dimensions), a 200k
// vocabulary, tied embeddings. (The real model adds LongRoPE factors for contexts beyond 4k.)
ModelShape phi4_mini() {
  ModelShape s;
  s.arch = "phi3";
  s.n_embd = 3072;
  s.n_layer = 32;
  s.n_head = 24;
  s.n_head_kv = 8;
  s.n_rot = 96;
  s.n_ff = 8192;
  s.n_vocab = 200064;
  s.n_ctx_train = 4096;
  s.tied_embeddings = true;
  return s;
}

// A few MB, for tests: fused QKV and gate/up, GQA, partial rotary (24 of 32 dimensions).
ModelShape phi3_tiny() {
  ModelShape s = phi4_mini();
  s.n_embd = 128;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.n_rot = 24;
  s.n_ff = 384;
  s.n_vocab = 4096;
  s.tied_embeddings = false;
  return s;
}

// Gemma 3 1B (text): 4 heads of 256 over n_embd 1152, one KV head, a 512-position sliding window on
// five of every six layers, a 262k vocabulary, tied embeddings.
ModelShape gemma3_1b() {
  ModelShape s;
  s.arch = "gemma3";
  s.n_embd = 1152;
  s.n_layer = 26;
  s.n_head = 4;
  s.n_head_kv = 1;
  s.head_dim = 256;
  s.n_ff = 6912;
  s.n_vocab = 262144;
  s.n_ctx_train = 32768;
  s.rope_freq_base = 1000000.0f;
  s.rms_eps = 1e-6f;
  s.tied_embeddings = true;
  s.n_swa = 512;
  s.swa_period = 6;
  return s;
}

// A few MB, for tests: layers 0 and 2 slide over 8 positions, layer 1 is global.
ModelShape gemma3_tiny() {
  ModelShape s = gemma3_1b();
  s.n_embd = 128;
  s.n_layer = 3;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.head_dim = 64;
  s.n_ff = 384;
  s.n_vocab = 4096;
  s.n_ctx_train = 4096;
  s.n_swa = 8;
  s.swa_period = 2;
  return s;
}

// Qwen3-30B-A3B: the qwen3 attention (head size 128 over n_embd 2048, GQA 32/4) with 128 experts of
// width 768 per block, 8 of them used per token; untied embeddings.
ModelShape qwen3moe_30b_a3b() {
  ModelShape s;
  s.arch = "qwen3moe";
  s.n_embd = 2048;
  s.n_layer = 48;
  s.n_head = 32;
  s.n_head_kv = 4;
  s.head_dim = 128;
  s.n_ff = 6144;
  s.n_expert = 128;
  s.n_expert_used = 8;
  s.n_ff_exp = 768;
  s.n_vocab = 151936;
  s.n_ctx_train = 40960;
  s.rope_freq_base = 1000000.0f;
  s.rms_eps = 1e-6f;
  return s;
}

// A few MB, for tests: 8 experts of width 128, 2 used per token, head size 64 over n_embd 128.
ModelShape qwen3moe_tiny() {
  ModelShape s = qwen3moe_30b_a3b();
  s.n_embd = 128;
  s.n_layer = 2;
  s.n_head = 4;
  s.n_head_kv = 2;
  s.head_dim = 64;
  s.n_ff = 384;
  s.n_expert = 8;
  s.n_expert_used = 2;
  s.n_ff_exp = 128;
  s.n_vocab = 4096;
  s.n_ctx_train = 4096;
  return s;
}

// Mixtral 8x7B (architecture llama): 8 experts of width 14336, 2 used per token, GQA 32/8.
ModelShape mixtral_8x7b() {
  ModelShape s = llama(4096, 32, 32, 8, 14336);
  s.n_expert = 8;
  s.n_expert_used = 2;
  s.n_ctx_train = 32768;
  s.rope_freq_base = 1000000.0f;
  return s;
}

// A few MB, for tests: 4 experts of width 256, 2 used per token.
ModelShape mixtral_tiny() {
  ModelShape s = llama(128, 2, 4, 2, 256);
  s.n_expert = 4;
  s.n_expert_used = 2;
  s.n_vocab = 4096;
  return s;
}

void require(bool ok, const char* what) {
  if (!ok) throw Error(codes::kInvalidArgument, std::string("synthetic model shape: ") + what);
}

}  // namespace

const std::vector<ShapePreset>& shape_presets() {
  static const std::vector<ShapePreset> presets = {
      {"llama-1b", llama(2048, 16, 32, 8, 8192)},
      {"llama-7b", llama(4096, 32, 32, 32, 11008)},
      {"llama-10b", llama(4096, 48, 32, 8, 14336)},
      {"qwen2-0.5b", qwen2_half_b()},
      {"qwen3-0.6b", qwen3_0_6b()},
      {"qwen3-tiny", qwen3_tiny()},
      {"phi4-mini", phi4_mini()},
      {"phi3-tiny", phi3_tiny()},
      {"gemma3-1b", gemma3_1b()},
      {"gemma3-tiny", gemma3_tiny()},
      {"qwen3moe-30b-a3b", qwen3moe_30b_a3b()},
      {"qwen3moe-tiny", qwen3moe_tiny()},
      {"mixtral-8x7b", mixtral_8x7b()},
      {"mixtral-tiny", mixtral_tiny()},
  };
  return presets;
}

ModelShape find_shape_preset(std::string_view name) {
  std::string names;
  for (const ShapePreset& p : shape_presets()) {
    if (p.name == name) return p.shape;
    names += names.empty() ? "" : ", ";
    names += p.name;
  }
  throw Error(codes::kInvalidArgument, "unknown preset (known: " + names + ")");
}

int ModelShape::expert_ff() const {
  if (n_expert <= 0) return 0;
  if (n_ff_exp > 0) return n_ff_exp;
  return arch == "qwen3moe" ? (n_expert_used > 0 ? n_ff / n_expert_used : 0) : n_ff;
}

void ModelShape::validate() const {
  require(arch == "llama" || arch == "qwen2" || arch == "qwen3" || arch == "qwen3moe" || arch == "phi3" ||
              arch == "gemma3",
          "arch must be llama, qwen2, qwen3, qwen3moe, phi3 or gemma3");
  require(n_swa >= 0 && swa_period >= 0, "n_swa and swa_period must not be negative");
  require(arch == "gemma3" || n_swa == 0, "a sliding window needs arch gemma3");
  require(n_embd > 0 && n_embd <= 65536, "n_embd must be in 1..65536");
  require(n_layer > 0 && n_layer <= 512, "n_layer must be in 1..512");
  require(n_head > 0 && n_head <= n_embd, "n_head must be in 1..n_embd");
  require(n_head_kv > 0 && n_head_kv <= n_head, "n_head_kv must be in 1..n_head");
  require(head_dim >= 0 && head_dim <= 1024, "head_dim must be in 0..1024 (0: n_embd / n_head)");
  require(head_dim > 0 || n_embd % n_head == 0, "n_embd must be a multiple of n_head");
  require(n_head % n_head_kv == 0, "n_head must be a multiple of n_head_kv");
  require(head_size() % 2 == 0, "the head size must be even (RoPE)");
  require(n_rot >= 0 && n_rot <= head_size() && n_rot % 2 == 0, "n_rot must be even and at most the head size");
  require(n_ff > 0 && n_ff <= 262144, "n_ff must be in 1..262144");
  require(n_vocab > 0 && n_vocab <= 1 << 22, "n_vocab must be in 1..4194304");
  require(n_ctx_train > 0, "n_ctx_train must be positive");
  require(n_expert >= 0 && n_expert <= 256, "n_expert must be in 0..256 (0: a dense FFN)");
  require(n_expert > 0 || arch != "qwen3moe", "arch qwen3moe needs n_expert > 0");
  require(n_expert == 0 || arch == "llama" || arch == "qwen3moe", "experts (n_expert > 0) need arch llama or qwen3moe");
  require(n_expert > 0 ? n_expert_used >= 1 && n_expert_used <= n_expert : n_expert_used == 0,
          "n_expert_used must be in 1..n_expert with experts, 0 without");
  require(n_ff_exp >= 0 && n_ff_exp <= 262144, "n_ff_exp must be in 0..262144");
  require(n_expert > 0 || n_ff_exp == 0, "n_ff_exp needs experts (n_expert > 0)");
  require(arch != "llama" || n_ff_exp == 0 || n_ff_exp == n_ff,
          "arch llama's experts are n_ff wide: n_ff_exp must be 0 or n_ff");
  require(n_expert == 0 || expert_ff() > 0, "the expert width (n_ff_exp, or n_ff / n_expert_used) must be positive");
}

uint64_t ModelShape::n_params() const {
  const uint64_t e = static_cast<uint64_t>(n_embd), hd = static_cast<uint64_t>(head_size());
  const uint64_t q = hd * static_cast<uint64_t>(n_head), kv = hd * static_cast<uint64_t>(n_head_kv);
  uint64_t layer = 2 * e + e * q * 2 + e * kv * 2;
  if (n_expert > 0) {
    const uint64_t n_exp = static_cast<uint64_t>(n_expert);
    layer += e * n_exp + 3 * e * static_cast<uint64_t>(expert_ff()) * n_exp;  // router, experts
  } else {
    layer += 3 * e * static_cast<uint64_t>(n_ff);
  }
  if (arch == "qwen2") layer += q + 2 * kv;
  if (arch == "qwen3" || arch == "qwen3moe") layer += 2 * hd;
  if (arch == "gemma3") layer += 2 * hd + 2 * e;
  const uint64_t embd = e * static_cast<uint64_t>(n_vocab);
  return layer * static_cast<uint64_t>(n_layer) + embd * (tied_embeddings ? 1 : 2) + e;
}

}  // namespace a3s::power::synth
