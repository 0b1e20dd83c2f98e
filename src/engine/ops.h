// Element-wise operations of the forward pass, on float rows. Numerics follow ggml's CPU ops so
// logits match llama.cpp closely: RMSNorm accumulates Σx² in double; SiLU is x / (1 + e^-x); SiLU
// and softmax take e^x from kernels::exp_row where ggml's vectorised ops do (16-element chunks, as
// its AVX-512 build) and from std::exp elsewhere.
#pragma once

#include <cstdint>

namespace a3s::power::engine {

// llama.cpp attends over the KV length padded to a multiple of this (padding masked: weight 0).
inline constexpr int64_t kKvPad = 32;

// y = x / sqrt(mean(x²) + eps) * w  (n floats; y may alias x; w may be null for no weight).
void rms_norm(const float* x, float* y, int64_t n, float eps, const float* w);

// gate[i] = silu(gate[i]) * up[i] (SwiGLU) over n_rows rows of n_cols floats each.
void swiglu(float* gate, const float* up, int64_t n_rows, int64_t n_cols);
// swiglu and geglu are elementwise: a call on the columns from a multiple of kGluColumnGroup to the
// end of a group or of the row gives each column the bits of a call on the whole row (swiglu's
// vector exp takes the columns in groups of this many).
inline constexpr int64_t kGluColumnGroup = 16;

// gate[i] = gelu_tanh(gate[i]) * up[i] (GeGLU) over n_rows rows of n_cols floats each, as ggml's CPU
// geglu: for -10 < x < 10, gelu_tanh(x) is read from a table indexed by x rounded to fp16 (the value
// 0.5·x·(1 + tanh(√(2/π)·x·(1 + 0.044715·x²))) of that fp16 number, rounded to fp16); 0 at or below
// -10, x at or above 10.
void geglu(float* gate, const float* up, int64_t n_rows, int64_t n_cols);

// y[i] += x[i]  (n floats).
void add_inplace(float* y, const float* x, int64_t n);

// In-place softmax of scale*x over n floats, as ggml's soft_max over a KV row padded with masked
// (-inf) entries to a multiple of 32: exponentials in 16-lane chunks, each chunk summed in float by
// a pairwise tree, the chunk sums in double.
// Entries [0, n_masked) are masked (the positions before a sliding window): they get weight 0 and
// take no part in the maximum, as -inf entries of ggml's mask do.
void softmax_scaled(float* x, int64_t n, float scale, int64_t n_masked = 0);

}  // namespace a3s::power::engine
