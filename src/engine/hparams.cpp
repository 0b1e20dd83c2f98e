#include "engine/hparams.h"

#include <cmath>
#include <limits>
#include <set>
#include <string_view>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::engine {
namespace {

// `<arch>.*` keys that do not change the computation: read by nobody, safe to ignore.
//   vocab_size           the vocabulary size again (token_embd.weight's rows are authoritative)
//   rope.scaling.finetuned  whether the model was fine-tuned at the scaled context (informational)
//   tensor_data_layout   how the converter laid out Q/K rows ("Meta AI original pth"); the tensors
//                        themselves are what the graph reads
constexpr std::string_view kInformationalKeys[] = {"vocab_size", "rope.scaling.finetuned",
                                                   "tensor_data_layout"};

// Reads `<arch>.*` keys and remembers which were read, so the rest can be checked afterwards.
class KeyReader {
 public:
  KeyReader(const gguf::File& f, std::string prefix) : f_(f), prefix_(std::move(prefix)) {}

  bool has(std::string_view key) const { return f_.has(full(key)); }

  int get_int(std::string_view key, std::optional<int> dflt, int min_value) {
    const std::string k = take(key);
    std::optional<int64_t> v = f_.get_i64(k);
    if (!v) {
      if (f_.has(k)) throw Error(codes::kInvalidModel, "metadata key " + k + " is not an integer");
      if (dflt) return *dflt;
      throw Error(codes::kInvalidModel, "missing metadata key " + k);
    }
    if (*v < min_value || *v > std::numeric_limits<int>::max())
      throw Error(codes::kInvalidModel, "metadata key " + k + " out of range (" + std::to_string(min_value) +
                                            ".." + std::to_string(std::numeric_limits<int>::max()) + ")");
    return static_cast<int>(*v);
  }

  std::optional<float> get_float(std::string_view key) {
    const std::string k = take(key);
    std::optional<double> v = f_.get_f64(k);
    if (!v) {
      if (f_.has(k)) throw Error(codes::kInvalidModel, "metadata key " + k + " is not a number");
      return std::nullopt;
    }
    if (!std::isfinite(*v)) throw Error(codes::kInvalidModel, "metadata key " + k + " is not finite");
    return static_cast<float>(*v);
  }
  float get_float(std::string_view key, float dflt) { return get_float(key).value_or(dflt); }

  std::optional<std::string> get_string(std::string_view key) {
    const std::string k = take(key);
    std::optional<std::string> v = f_.get_string(k);
    if (!v && f_.has(k)) throw Error(codes::kInvalidModel, "metadata key " + k + " is not a string");
    return v;
  }

  // Every `<arch>.*` key of the file that was not read and is not informational is refused.
  void refuse_unread() const {
    for (const std::string& k : f_.keys()) {
      if (k.compare(0, prefix_.size(), prefix_) != 0 || read_.count(k)) continue;
      const std::string_view rest = std::string_view(k).substr(prefix_.size());
      bool informational = false;
      for (std::string_view ok : kInformationalKeys) informational |= rest == ok;
      if (informational) continue;
      throw Error(codes::kUnsupportedModelFeature,
                  "model uses metadata key " + gguf::shown_text(k) +
                      ", which the engine does not implement");
    }
  }

  // A key that is allowed only with a value that changes nothing (e.g. expert_count 0).
  void allow_if(std::string_view key, bool harmless, const std::string& what) {
    const std::string k = take(key);
    if (f_.has(k) && !harmless)
      throw Error(codes::kUnsupportedModelFeature, "model uses " + what + " (" + k + "), which is not supported");
  }

 private:
  std::string full(std::string_view key) const { return prefix_ + std::string(key); }
  std::string take(std::string_view key) {
    std::string k = full(key);
    read_.insert(k);
    return k;
  }

  const gguf::File& f_;
  std::string prefix_;
  std::set<std::string> read_;
};

void read_rope_scaling(KeyReader& keys, HParams& hp) {
  // `rope.scaling.type` is "none", "linear" or "yarn". Without it, a factor (`rope.scaling.factor`,
  // or the older `rope.scale_linear`) means linear scaling, as llama.cpp reads these files.
  const std::optional<std::string> type = keys.get_string("rope.scaling.type");
  std::optional<float> factor = keys.get_float("rope.scaling.factor");
  const std::optional<float> linear = keys.get_float("rope.scale_linear");
  const std::string factor_key = hp.arch + (factor ? ".rope.scaling.factor" : ".rope.scale_linear");
  if (!factor) factor = linear;
  if (factor && *factor < 0.0f) throw Error(codes::kInvalidModel, "metadata key " + factor_key + " is negative");
  const std::string scaling = type.value_or(factor && *factor != 0.0f ? "linear" : "none");
  if (scaling == "none") {
    hp.rope_scaling = RopeScaling::None;
  } else if (scaling == "linear") {
    hp.rope_scaling = RopeScaling::Linear;
  } else if (scaling == "yarn") {
    hp.rope_scaling = RopeScaling::Yarn;
    hp.yarn_ext_factor = 1.0f;
  } else {
    throw Error(codes::kUnsupportedModelFeature,
                "model uses rope scaling \"" + gguf::shown_text(scaling, 32) +
                    "\", which is not supported (supported: none, linear, yarn; Llama 3 scaling is the "
                    "rope_freqs.weight tensor)");
  }
  if (hp.rope_scaling != RopeScaling::None && factor && *factor > 0.0f) hp.rope_freq_scale = 1.0f / *factor;
  hp.n_ctx_orig = keys.get_int("rope.scaling.original_context_length", hp.n_ctx_train, 1);
  hp.rope_attn_factor = keys.get_float("rope.scaling.attn_factor", 1.0f);
  if (!(hp.rope_attn_factor > 0.0f))
    throw Error(codes::kInvalidModel, "metadata key " + hp.arch + ".rope.scaling.attn_factor must be positive");
}

// Expert counts (llama.cpp: LLM_KV_EXPERT_COUNT, LLM_KV_EXPERT_USED_COUNT, and for qwen3moe
// LLM_KV_EXPERT_FEED_FORWARD_LENGTH). Other expert keys (shared experts, gating functions, weight
// scales, groups) change the math and stay unread: refused by refuse_unread.
void read_experts(KeyReader& keys, const ArchSpec& arch, HParams& hp) {
  constexpr int kMaxExperts = 512;  // llama.cpp's LLAMA_MAX_EXPERTS
  const bool required = arch.experts == Presence::Required;
  hp.n_expert = keys.get_int("expert_count", required ? std::nullopt : std::optional<int>(0), required ? 1 : 0);
  if (hp.n_expert > kMaxExperts)
    throw Error(codes::kInvalidModel, "metadata key " + hp.arch + ".expert_count is above " + std::to_string(kMaxExperts));
  hp.n_expert_used = keys.get_int("expert_used_count", hp.n_expert > 0 ? std::nullopt : std::optional<int>(0), 0);
  if (hp.n_expert == 0) {
    if (hp.n_expert_used != 0)
      throw Error(codes::kInvalidModel, "metadata key " + hp.arch + ".expert_used_count is set without experts");
    return;
  }
  if (hp.n_expert_used < 1 || hp.n_expert_used > hp.n_expert)
    throw Error(codes::kInvalidModel, "metadata key " + hp.arch + ".expert_used_count must be in 1.." +
                                          std::to_string(hp.n_expert));
  if (arch.name == "qwen3moe") {
    hp.n_ff_exp = keys.get_int("expert_feed_forward_length", hp.n_ff / hp.n_expert_used, 0);
    if (hp.n_ff_exp < 1) throw Error(codes::kInvalidModel, "expert_feed_forward_length must be positive");
  } else {
    hp.n_ff_exp = hp.n_ff;  // llama (Mixtral): every expert has the dense FFN's width
  }
}

}  // namespace

HParams read_hparams(const gguf::File& f, const ArchSpec& arch, int n_vocab) {
  HParams hp;
  hp.arch = std::string(arch.name);
  KeyReader keys(f, hp.arch + ".");
  hp.n_vocab = n_vocab;
  hp.n_ctx_train = keys.get_int("context_length", std::nullopt, 1);
  hp.n_embd = keys.get_int("embedding_length", std::nullopt, 1);
  hp.n_layer = keys.get_int("block_count", std::nullopt, 1);
  hp.n_ff = keys.get_int("feed_forward_length", std::nullopt, 1);
  hp.n_head = keys.get_int("attention.head_count", std::nullopt, 1);
  hp.n_head_kv = keys.get_int("attention.head_count_kv", hp.n_head, 1);
  if (hp.n_head % hp.n_head_kv != 0)
    throw Error(codes::kInvalidModel, "attention.head_count_kv does not divide attention.head_count");
  if (hp.n_embd % hp.n_head != 0 && !keys.has("attention.key_length"))
    throw Error(codes::kInvalidModel, "embedding_length is not a multiple of attention.head_count");
  hp.head_dim = keys.get_int("attention.key_length", hp.n_embd / hp.n_head, 1);
  const int head_dim_v = keys.get_int("attention.value_length", hp.head_dim, 1);
  if (head_dim_v != hp.head_dim)
    throw Error(codes::kInvalidModel, "attention.value_length differs from attention.key_length");
  hp.n_rot = keys.get_int("rope.dimension_count", hp.head_dim, 0);
  if (hp.n_rot > hp.head_dim || hp.n_rot % 2 != 0)
    throw Error(codes::kInvalidModel, "rope.dimension_count must be even and at most the head size");
  hp.rms_eps = keys.get_float("attention.layer_norm_rms_epsilon", 1e-5f);
  if (!(hp.rms_eps >= 0.0f)) throw Error(codes::kInvalidModel, "attention.layer_norm_rms_epsilon is negative");
  hp.rope_style = arch.rope_style;
  hp.rope_base = keys.get_float("rope.freq_base", arch.default_rope_base);
  if (!(hp.rope_base > 0.0f)) throw Error(codes::kInvalidModel, "rope.freq_base must be positive");
  read_rope_scaling(keys, hp);
  if (arch.prescale_q) {
    // llama.cpp: Gemma 3 27B (62 blocks) scales by 1/sqrt(n_embd / n_head) (Gemma's
    // query_pre_attn_scalar), every other size and phi3 by 1/sqrt(head_dim).
    const bool gemma3_27b = arch.gemma && hp.n_layer == 62;
    hp.q_scale = 1.0f / std::sqrt(static_cast<float>(gemma3_27b ? hp.n_embd / hp.n_head : hp.head_dim));
  }
  if (arch.gemma) {
    hp.embd_scale = std::sqrt(static_cast<float>(hp.n_embd));
    hp.n_swa = keys.get_int("attention.sliding_window", 0, 0);
    hp.swa_period = keys.get_int("attention.sliding_window_pattern", 6, 0);
    hp.rope_base_swa = keys.get_float("rope.freq_base_swa", 10000.0f);
    if (!(hp.rope_base_swa > 0.0f)) throw Error(codes::kInvalidModel, "rope.freq_base_swa must be positive");
    hp.logit_softcap = keys.get_float("final_logit_softcapping", 0.0f);
    if (!(hp.logit_softcap >= 0.0f))
      throw Error(codes::kInvalidModel, "final_logit_softcapping must not be negative");
  }
  hp.pooling_type = keys.get_int("pooling_type", 0, 0);
  if (hp.pooling_type > 4) throw Error(codes::kInvalidModel, "pooling_type is not a known pooling (0..4)");
  if (arch.name == "phi3") {
    // Phi-3 converters write the HF config's sliding_window (2047 for Phi-3-mini-4k), which llama.cpp
    // reads and then disables ("Phi SWA is currently disabled", llama.cpp#13676): attention is over
    // the whole context there, and here. Read (checked) and not applied, for parity.
    keys.get_int("attention.sliding_window", 0, 0);
  }

  if (arch.experts == Presence::Absent) {
    // Dense models written by converters that always emit the expert counts.
    keys.allow_if("expert_count", f.get_i64(hp.arch + ".expert_count").value_or(-1) == 0, "mixture of experts");
    keys.allow_if("expert_used_count", f.get_i64(hp.arch + ".expert_used_count").value_or(-1) == 0,
                  "mixture of experts");
  } else {
    read_experts(keys, arch, hp);
  }
  keys.refuse_unread();
  return hp;
}

}  // namespace a3s::power::engine
