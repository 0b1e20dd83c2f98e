// Element-wise operations of the forward pass, on float rows. Numerics follow ggml's CPU ops so
// logits match llama.cpp closely: RMSNorm accumulates Σx² in double, SiLU is x / (1 + e^-x).
#pragma once

#include <cstdint>

namespace a3s::power::engine {

// y = x / sqrt(mean(x²) + eps) * w  (n floats; y may alias x; w may be null for no weight).
void rms_norm(const float* x, float* y, int64_t n, float eps, const float* w);

// gate[i] = silu(gate[i]) * up[i]  (SwiGLU, n floats).
void swiglu(float* gate, const float* up, int64_t n);

// y[i] += x[i]  (n floats).
void add_inplace(float* y, const float* x, int64_t n);

// In-place softmax of scale*x over n floats (Σ in double, like ggml's soft_max).
void softmax_scaled(float* x, int64_t n, float scale);

}  // namespace a3s::power::engine
