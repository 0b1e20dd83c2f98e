// Model shapes for synthetic GGUF files (`a3s-power synth`): the hyper-parameters that decide a
// model's speed and memory (tensor shapes), with named presets of common model sizes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::synth {

struct ModelShape {
  // general.architecture: "llama", "qwen2" (QKV biases), "qwen3" (per-head Q/K norms), "qwen3moe"
  // (qwen3 with a mixture of experts), "phi3" (fused QKV and gate/up tensors) or "gemma3" (Q/K norms,
  // post-norms, sliding-window layers)
  std::string arch = "llama";
  int n_embd = 0;              // embedding width
  int n_layer = 0;             // transformer blocks
  int n_head = 0;              // query heads
  int n_head_kv = 0;           // key/value heads (GQA when < n_head)
  int head_dim = 0;            // size of one head; 0: n_embd / n_head (qwen3 sets its own)
  int n_rot = 0;               // rotated dimensions per head (partial rotary); 0: the whole head
  int n_swa = 0;               // gemma3: sliding window (positions); 0: none
  int swa_period = 0;          // gemma3: every swa_period-th layer is global (the others slide)
  int n_ff = 0;                // feed-forward width (of the dense FFN; llama's experts have this width)
  // Mixture of experts (llama: Mixtral's layout; qwen3moe): every block's FFN is n_expert experts, of
  // which a router (ffn_gate_inp) picks n_expert_used per token. 0: a dense FFN.
  int n_expert = 0;
  int n_expert_used = 0;
  int n_ff_exp = 0;            // qwen3moe: one expert's width (0: n_ff / n_expert_used, as llama.cpp
                               // reads it); llama: 0 or n_ff
  int n_vocab = 0;             // vocabulary size (replaced by the copied vocabulary's with --vocab-from)
  int n_ctx_train = 4096;      // context_length metadata
  float rope_freq_base = 10000.0f;
  float rms_eps = 1e-5f;
  bool tied_embeddings = false;  // no output.weight: the head reuses token_embd

  // Throws Error(codes::kInvalidArgument) naming the field when a value is out of range or
  // n_embd is not a multiple of n_head (unless head_dim is set), or n_head of n_head_kv, or the experts
  // do not fit the architecture (qwen3moe needs them, only llama and qwen3moe have them).
  void validate() const;
  // The size of one head: head_dim, or n_embd / n_head when it is 0.
  int head_size() const { return head_dim > 0 ? head_dim : n_embd / n_head; }
  int rotary_dims() const { return n_rot > 0 ? n_rot : head_size(); }
  // The width of one expert: n_ff_exp, or its default (n_ff / n_expert_used for qwen3moe, n_ff for
  // llama); 0 for a dense model.
  int expert_ff() const;
  // Number of weights of the model (every tensor's elements).
  uint64_t n_params() const;
};

struct ShapePreset {
  std::string_view name;  // e.g. "llama-7b"
  ModelShape shape;
};

// llama-1b, llama-7b, llama-10b, qwen2-0.5b, qwen3-0.6b, qwen3-tiny, phi4-mini, phi3-tiny, gemma3-1b,
// gemma3-tiny, qwen3moe-30b-a3b, qwen3moe-tiny, mixtral-8x7b, mixtral-tiny (see model_shape.cpp for the
// numbers).
const std::vector<ShapePreset>& shape_presets();
// The preset with that name; throws Error(codes::kInvalidArgument) listing the presets otherwise.
ModelShape find_shape_preset(std::string_view name);

}  // namespace a3s::power::synth
