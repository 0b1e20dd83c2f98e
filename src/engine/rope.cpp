#include "engine/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "a3s/power/error.h"

namespace a3s::power::engine {
namespace {

// YaRN: the dimension index at which a wavelength makes `n_rotations` turns over the original
// context (Peng et al. 2023, "YaRN: Efficient Context Window Extension").
float yarn_corr_dim(int n_rot, int n_ctx_orig, float n_rotations, float base) {
  return static_cast<float>(n_rot) *
         std::log(static_cast<float>(n_ctx_orig) / (n_rotations * 2.0f * std::numbers::pi_v<float>)) /
         (2.0f * std::log(base));
}

float yarn_ramp(float low, float high, int i0) {
  const float y = (static_cast<float>(i0 / 2) - low) / std::max(0.001f, high - low);
  return 1.0f - std::min(1.0f, std::max(0.0f, y));
}

}  // namespace

Rope::Rope(const HParams& hp, std::vector<float> freq_factors)
    : style_(hp.rope_style),
      n_rot_(hp.n_rot),
      head_dim_(hp.head_dim),
      theta_scale_(hp.n_rot > 0 ? std::pow(hp.rope_base, -2.0f / static_cast<float>(hp.n_rot)) : 1.0f),
      freq_scale_(hp.rope_freq_scale),
      ext_factor_(hp.yarn_ext_factor),
      attn_factor_(hp.rope_attn_factor),
      freq_factors_(std::move(freq_factors)) {
  if (!freq_factors_.empty() && freq_factors_.size() != static_cast<size_t>(n_rot_ / 2))
    throw Error(codes::kInternal, "rope: one frequency factor per rotated pair");
  if (n_rot_ > 0) {
    const float start = std::floor(yarn_corr_dim(n_rot_, hp.n_ctx_orig, hp.yarn_beta_fast, hp.rope_base));
    const float end = std::ceil(yarn_corr_dim(n_rot_, hp.n_ctx_orig, hp.yarn_beta_slow, hp.rope_base));
    corr_dims_[0] = std::max(0.0f, start);
    corr_dims_[1] = std::min(static_cast<float>(n_rot_ - 1), end);
  }
}

void Rope::angles(int pos, float* cache) const {
  float theta_base = static_cast<float>(pos);
  for (int i0 = 0; i0 < n_rot_; i0 += 2) {
    const float theta_extrap =
        freq_factors_.empty() ? theta_base : theta_base / freq_factors_[static_cast<size_t>(i0 / 2)];
    const float theta_interp = freq_scale_ * theta_extrap;
    float theta = theta_interp;
    float mscale = attn_factor_;
    if (ext_factor_ != 0.0f) {
      const float mix = yarn_ramp(corr_dims_[0], corr_dims_[1], i0) * ext_factor_;
      theta = theta_interp * (1.0f - mix) + theta_extrap * mix;
      mscale *= 1.0f + 0.1f * std::log(1.0f / freq_scale_);
    }
    cache[i0] = std::cos(theta) * mscale;
    cache[i0 + 1] = std::sin(theta) * mscale;
    theta_base *= theta_scale_;
  }
}

void Rope::apply(float* x, int n_heads, const float* cache) const {
  const int half = n_rot_ / 2;
  for (int h = 0; h < n_heads; ++h) {
    float* v = x + static_cast<size_t>(h) * static_cast<size_t>(head_dim_);
    if (style_ == RopeStyle::Norm) {
      for (int i0 = 0; i0 < n_rot_; i0 += 2) {
        const float c = cache[i0], s = cache[i0 + 1];
        const float x0 = v[i0], x1 = v[i0 + 1];
        v[i0] = x0 * c - x1 * s;
        v[i0 + 1] = x0 * s + x1 * c;
      }
    } else {
      for (int i0 = 0; i0 < n_rot_; i0 += 2) {
        const int k = i0 / 2;
        const float c = cache[i0], s = cache[i0 + 1];
        const float x0 = v[k], x1 = v[k + half];
        v[k] = x0 * c - x1 * s;
        v[k + half] = x0 * s + x1 * c;
      }
    }
  }
}

}  // namespace a3s::power::engine
