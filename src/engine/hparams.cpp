#include "engine/hparams.h"

#include <cmath>
#include <limits>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::engine {
namespace {

int get_int(const gguf::File& f, const std::string& key, std::optional<int> dflt, int min_value) {
  std::optional<int64_t> v = f.get_i64(key);
  if (!v) {
    if (dflt) return *dflt;
    throw Error(codes::kInvalidModel, "missing metadata key " + key);
  }
  if (*v < min_value || *v > std::numeric_limits<int>::max())
    throw Error(codes::kInvalidModel, "metadata key " + key + " out of range");
  return static_cast<int>(*v);
}

float get_float(const gguf::File& f, const std::string& key, float dflt) {
  std::optional<double> v = f.get_f64(key);
  if (!v) return dflt;
  if (!std::isfinite(*v)) throw Error(codes::kInvalidModel, "metadata key " + key + " is not finite");
  return static_cast<float>(*v);
}

}  // namespace

HParams read_hparams(const gguf::File& f, const ArchSpec& arch, int n_vocab) {
  HParams hp;
  hp.arch = std::string(arch.name);
  const std::string p = hp.arch + ".";
  hp.n_vocab = n_vocab;
  hp.n_ctx_train = get_int(f, p + "context_length", std::nullopt, 1);
  hp.n_embd = get_int(f, p + "embedding_length", std::nullopt, 1);
  hp.n_layer = get_int(f, p + "block_count", std::nullopt, 1);
  hp.n_ff = get_int(f, p + "feed_forward_length", std::nullopt, 1);
  hp.n_head = get_int(f, p + "attention.head_count", std::nullopt, 1);
  hp.n_head_kv = get_int(f, p + "attention.head_count_kv", hp.n_head, 1);
  if (hp.n_head % hp.n_head_kv != 0)
    throw Error(codes::kInvalidModel, "attention.head_count_kv does not divide attention.head_count");
  if (hp.n_embd % hp.n_head != 0 && !f.has(p + "attention.key_length"))
    throw Error(codes::kInvalidModel, "embedding_length is not a multiple of attention.head_count");
  hp.head_dim = get_int(f, p + "attention.key_length", hp.n_embd / hp.n_head, 1);
  const int head_dim_v = get_int(f, p + "attention.value_length", hp.head_dim, 1);
  if (head_dim_v != hp.head_dim)
    throw Error(codes::kInvalidModel, "attention.value_length differs from attention.key_length");
  hp.n_rot = get_int(f, p + "rope.dimension_count", hp.head_dim, 0);
  if (hp.n_rot > hp.head_dim || hp.n_rot % 2 != 0)
    throw Error(codes::kInvalidModel, "rope.dimension_count must be even and at most the head size");
  hp.rms_eps = get_float(f, p + "attention.layer_norm_rms_epsilon", 1e-5f);
  if (!(hp.rms_eps >= 0.0f)) throw Error(codes::kInvalidModel, "attention.layer_norm_rms_epsilon is negative");
  hp.rope_style = arch.rope_style;
  hp.rope_base = get_float(f, p + "rope.freq_base", arch.default_rope_base);
  if (!(hp.rope_base > 0.0f)) throw Error(codes::kInvalidModel, "rope.freq_base must be positive");

  // RoPE scaling: `rope.scaling.type` ("none", "linear", "yarn"); older files carry only
  // `rope.scale_linear`.
  std::string scaling = f.get_string(p + "rope.scaling.type").value_or("");
  float factor = get_float(f, p + "rope.scaling.factor", 0.0f);
  if (scaling.empty()) {
    float lin = get_float(f, p + "rope.scale_linear", 0.0f);
    if (lin > 0.0f) {
      scaling = "linear";
      factor = lin;
    } else {
      scaling = "none";
    }
  }
  if (scaling == "none") {
    hp.rope_scaling = RopeScaling::None;
  } else if (scaling == "linear") {
    hp.rope_scaling = RopeScaling::Linear;
  } else if (scaling == "yarn") {
    hp.rope_scaling = RopeScaling::Yarn;
    hp.yarn_ext_factor = 1.0f;
  } else {
    throw Error(codes::kInvalidModel, "unsupported rope.scaling.type " + scaling);
  }
  if (hp.rope_scaling != RopeScaling::None) {
    if (factor < 0.0f) throw Error(codes::kInvalidModel, "rope.scaling.factor is negative");
    hp.rope_freq_scale = factor > 0.0f ? 1.0f / factor : 1.0f;
  }
  hp.n_ctx_orig = get_int(f, p + "rope.scaling.original_context_length", hp.n_ctx_train, 1);
  return hp;
}

}  // namespace a3s::power::engine
