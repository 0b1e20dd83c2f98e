// Model hyper-parameters read from GGUF metadata (`<arch>.*` keys, see ggml-org/ggml docs/gguf.md,
// "LLM" section) and checked for consistency. Shapes of tensors are derived from these.
//
// Fail closed: every `<arch>.*` key of the file is either read here or on a short list of keys that
// do not change the computation (hparams.cpp, kInformationalKeys). Any other key (soft-capping,
// sliding window, attention scale, experts, …) is a load error naming it, so a model whose math the
// engine does not implement is refused instead of answering with silently wrong numbers.
#pragma once

#include <string>

#include "engine/arch.h"

namespace a3s::power::gguf { class File; }

namespace a3s::power::engine {

enum class RopeScaling { None, Linear, Yarn };

struct HParams {
  std::string arch;
  int n_vocab = 0;       // rows of token_embd.weight
  int n_ctx_train = 0;   // <arch>.context_length
  int n_embd = 0;        // <arch>.embedding_length
  int n_layer = 0;       // <arch>.block_count
  int n_ff = 0;          // <arch>.feed_forward_length
  int n_head = 0;        // <arch>.attention.head_count
  int n_head_kv = 0;     // <arch>.attention.head_count_kv (default n_head)
  int head_dim = 0;      // <arch>.attention.key_length (default n_embd / n_head)
  int n_rot = 0;         // <arch>.rope.dimension_count (default head_dim); rotated dims per head
  float rms_eps = 1e-5f; // <arch>.attention.layer_norm_rms_epsilon
  RopeStyle rope_style = RopeStyle::Norm;
  // Q is multiplied by this before q·k and the scores are not scaled (ArchSpec::prescale_q); 0: the
  // scores are scaled by 1/sqrt(head_dim) (attention.h).
  float q_scale = 0.0f;
  // Sliding-window attention (gemma3): layer il with is_swa(il) attends to the n_swa most recent
  // positions (its own included), with RoPE base rope_base_swa and no rope scaling.
  int n_swa = 0;            // <arch>.attention.sliding_window; 0: none
  int swa_period = 0;       // <arch>.attention.sliding_window_pattern: every swa_period-th layer is global
  float rope_base_swa = 10000.0f;  // <arch>.rope.freq_base_swa
  float embd_scale = 0.0f;  // token embeddings multiplied by this (gemma: sqrt(n_embd)); 0: not
  float logit_softcap = 0.0f;  // <arch>.final_logit_softcapping: logits = c·tanh(logits / c); 0: none
  // <arch>.pooling_type, how embeddings pool token states (llama.cpp's enum llama_pooling_type):
  // 0 none (absent), 1 mean, 2 cls (first token), 3 last, 4 rank (a reranker's score).
  int pooling_type = 0;
  // Mixture of experts (ArchSpec::experts): every block routes each token to n_expert_used of its
  // n_expert experts (FFNs of width n_ff_exp). 0 experts: a dense FFN of width n_ff.
  int n_expert = 0;        // <arch>.expert_count
  int n_expert_used = 0;   // <arch>.expert_used_count
  int n_ff_exp = 0;        // <arch>.expert_feed_forward_length (qwen3moe; default n_ff / n_expert_used), n_ff for llama
  // Width of the FFN activations one token has at a time: an expert's or the dense FFN's.
  int ffn_width() const { return n_expert > 0 ? n_ff_exp : n_ff; }
  bool is_swa(int il) const { return n_swa > 0 && (swa_period == 0 || il % swa_period < swa_period - 1); }
  float rope_base = 10000.0f;   // <arch>.rope.freq_base
  // RoPE scaling. Llama 3.1+ scaling is not a type: it comes as the `rope_freqs.weight` tensor
  // (per-pair frequency divisors, see rope.h), on top of any of these.
  RopeScaling rope_scaling = RopeScaling::None;  // <arch>.rope.scaling.type (absent: linear if a factor is given)
  float rope_freq_scale = 1.0f; // 1 / <arch>.rope.scaling.factor (or the older rope.scale_linear)
  int n_ctx_orig = 0;           // <arch>.rope.scaling.original_context_length (default n_ctx_train)
  float rope_attn_factor = 1.0f; // <arch>.rope.scaling.attn_factor: scales cos/sin (every type)
  float yarn_ext_factor = 0.0f; // 1 with YaRN scaling, else 0
  float yarn_beta_fast = 32.0f, yarn_beta_slow = 1.0f;

  int n_embd_q() const { return n_head * head_dim; }
  int n_embd_kv() const { return n_head_kv * head_dim; }
  int n_gqa() const { return n_head / n_head_kv; }  // query heads per KV head
};

// Reads and validates the hyper-parameters. n_vocab is taken from `n_vocab` (the token embedding
// rows). Throws Error(codes::kInvalidModel) naming the key for missing/invalid values, and
// Error(codes::kUnsupportedModelFeature) naming the key for an `<arch>.*` key the engine does not
// implement (an unknown key, or a known one with a value it cannot compute, e.g. rope scaling
// "longrope").
HParams read_hparams(const gguf::File& file, const ArchSpec& arch, int n_vocab);

}  // namespace a3s::power::engine
