// Rotary position embedding (RoPE), with linear and YaRN frequency scaling.
//
// For head dimension pair k (k = 0 … n_rot/2-1) at position p the angle is
//   theta_k = p * base^(-2k / n_rot) / f_k, scaled by freq_scale (and blended per YaRN when
//   ext_factor≠0), where f_k is the model's `rope_freqs.weight` factor for pair k (1 without it):
//   Llama 3.1+ RoPE scaling, which the converter stores as these per-pair divisors. cos/sin are
//   multiplied by `rope.scaling.attn_factor`.
// Norm style rotates (x[2k], x[2k+1]); Neox style rotates (x[k], x[k + n_rot/2]). Dimensions
// n_rot … head_dim-1 pass through. Numerics follow ggml's CPU rope (angles built by repeated
// multiplication in float), so results match llama.cpp closely.
#pragma once

#include <vector>

#include "engine/arch.h"
#include "engine/hparams.h"

namespace a3s::power::engine {

class Rope {
 public:
  // freq_factors: n_rot/2 positive divisors (rope_freqs.weight), or empty.
  Rope(const HParams& hp, std::vector<float> freq_factors = {});

  // Fills `cache` (n_rot floats: cos, sin interleaved per pair) for position `pos`.
  void angles(int pos, float* cache) const;
  // Rotates n_heads heads of head_dim floats laid out contiguously in x, using `cache` from angles().
  void apply(float* x, int n_heads, const float* cache) const;

  int n_rot() const { return n_rot_; }

 private:
  RopeStyle style_;
  int n_rot_, head_dim_;
  float theta_scale_, freq_scale_, ext_factor_, attn_factor_;
  float corr_dims_[2] = {0, 0};
  std::vector<float> freq_factors_;
};

}  // namespace a3s::power::engine
