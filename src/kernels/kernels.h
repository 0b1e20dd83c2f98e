// Compute kernels of the engine: fp16/bf16 conversion, (de)quantization of ggml block formats, dot
// products between a weight row and an activation row, and the tiled, threaded matrix multiply.
//
// Formats. Block layouts are those of ggml (source: ggml-org/llama.cpp `ggml/src/ggml-common.h`);
// dequantization follows its reference code (`ggml/src/ggml-quants.c`). A row of n elements of type t
// occupies `row_size(t, n)` bytes (src/model/gguf/tensor_type.h) and n must be a multiple of the block
// size of t (1 for F32/F16/BF16, 32 for Q4_0..Q8_1, 256 for the K-quants and Q8_K).
//
// Dot products. As in llama.cpp's CPU backend, a weight row of type w is multiplied with an activation
// row quantized to `vec_dot_type(w)` (F32→F32, F16→F16, BF16→BF16, Q4_0/Q5_0/Q8_0→Q8_0,
// Q4_1/Q5_1→Q8_1, Q2_K..Q6_K→Q8_K). Quantized products sum integers inside each block and scale by the
// block factors in float, like llama.cpp's `ggml_vec_dot_<w>_<act>`; K-quant minima are applied through
// the Q8_K `bsums`. The float order is that of llama.cpp's x86 (AVX2) kernels: integer sums in the
// eight int32 lanes of 32-byte vectors, one FMA per lane and block, lanes summed at the end
// (src/kernels/lanes8.h). Every ISA path returns the same bits as the scalar reference, which defines
// the arithmetic; `matmul` returns the same bits as `vec_dot` row by row — except BF16 with two or
// more tokens, which follows llama.cpp's prompt-processing GEMM order (src/kernels/bf16_pairs.h; one
// token follows its ggml_vec_dot_bf16, both as on AVX512-BF16 CPUs). Activation quants are
// expected in [-127, 127], the range the quantizers below produce.
//
// ISA dispatch. A scalar reference path is always built; an AVX2+FMA+F16C path is compiled separately
// and chosen at start-up when the CPU supports it. The environment variable A3S_POWER_ISA
// (scalar|avx2|avx512|auto) overrides the choice; values that are unknown or not supported by the CPU fall
// back to the best supported path. `force_isa` switches paths at run time (tests, benchmarks).
//
// Errors. Functions throw a3s::power::Error with code "unsupported_tensor_type" for a type that has no
// such operation (e.g. vec_dot with a Q8_K weight) and "invalid_argument" when n is negative or not a
// multiple of the block size, or shapes do not fit. Messages never contain tensor data.
// Pointers must not be null when n > 0. Rows need only the natural alignment of their block (2 bytes
// for fp16-scaled blocks, 4 for Q8_K and F32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/thread_pool.h"
#include "kernels/f16_pages.h"
#include "model/gguf/tensor_type.h"

namespace a3s::power::kernels {

// ---------------------------------------------------------------------------------------------------
// Half-precision conversions (bit-exact with ggml).

// IEEE 754 binary16 → binary32. Exact for every number (subnormals, infinities); NaNs come out quiet
// with their payload kept (as ggml and F16C).
float fp16_to_fp32(uint16_t h);
// binary32 → binary16, round to nearest even; overflow → ±inf; values below half the smallest
// subnormal → ±0; subnormal results rounded correctly; NaN → sign | 0x7E00 (quiet NaN), as ggml.
uint16_t fp32_to_fp16(float f);
// bfloat16 (upper 16 bits of binary32) → binary32. Exact.
float bf16_to_fp32(uint16_t b);
// binary32 → bfloat16, round to nearest even; NaN stays NaN (quiet bit forced), as ggml.
uint16_t fp32_to_bf16(float f);

// Row versions: n elements; src and dst must not overlap.
void fp16_to_fp32_row(const uint16_t* src, float* dst, int64_t n);
void fp32_to_fp16_row(const float* src, uint16_t* dst, int64_t n);
void bf16_to_fp32_row(const uint16_t* src, float* dst, int64_t n);
void fp32_to_bf16_row(const float* src, uint16_t* dst, int64_t n);

// y[i] = exp(x[i]) for n elements by the polynomial approximation of llama.cpp's vectorised soft_max
// and SiLU (exp_approx.h: ≈1.5 ULP; 0 below x ≈ -133, +inf above x ≈ 88.7; the same bits on every
// ISA). x and y may be the same array.
void exp_row(const float* x, float* y, int64_t n);

// Σ x[i]·y[i] over two F16 rows of n elements, in the summation order of llama.cpp's AVX-512
// ggml_vec_dot_f16 (dot_f16_lanes16.h); elements n ≤ i < n_padded count as zeros (masked KV
// positions). Used by attention for K·q and V·p. The same bits on every ISA.
float dot_f16_lanes16(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded);

// out[r] = dot_f16_lanes16(x + r·x_stride, y, n, n_padded) for r in [0, n_rows), bit for bit: one
// F16 vector against n_rows rows x_stride elements apart (attention: a query against the K rows of
// its positions, or the probabilities against V columns). The rows are read ahead of use.
void dot_f16_lanes16_rows(const uint16_t* x, int64_t x_stride, int64_t n_rows, const uint16_t* y, int64_t n,
                          int64_t n_padded, float* out);


// x: rows in pages (f16_pages.h). out[r] = dot_f16_lanes16(row r of x, y, n, n_padded) for r in
// [0, n_rows), bit for bit the value of the same row stored contiguously: pages change where
// elements are read, never the order in which they are summed. Attention: the probabilities
// against the V columns of a paged KV cache.
void dot_f16_lanes16_pages(const F16Pages& x, int64_t n_rows, const uint16_t* y, int64_t n, int64_t n_padded,
                           float* out);

// The same for n_y vectors at once: out[q][r] = dot_f16_lanes16(row r, y[q], n, n_padded), bit for
// bit. Each group of rows is multiplied with every vector while it is in cache, so the rows are
// read from memory once for all of them (attention: the query heads that share a KV head).
void dot_f16_lanes16_rows(const uint16_t* x, int64_t x_stride, int64_t n_rows, const uint16_t* const* y, int n_y,
                          int64_t n, int64_t n_padded, float* const* out);
void dot_f16_lanes16_pages(const F16Pages& x, int64_t n_rows, const uint16_t* const* y, int n_y, int64_t n,
                           int64_t n_padded, float* const* out);

// ---------------------------------------------------------------------------------------------------
// Types.

// The activation type used for dot products with weights of type w (llama.cpp CPU `vec_dot_type`).
// Throws "unsupported_tensor_type" for Q8_1 / Q8_K (activation-only) and unknown ids.
TensorType vec_dot_type(TensorType w);

// ---------------------------------------------------------------------------------------------------
// (De)quantization of one row.

// src: one row of n elements of type t (row_size(t, n) bytes); dst: n floats.
// Supported: every weight type plus Q8_1 and Q8_K.
void dequantize_row(TensorType t, const void* src, float* dst, int64_t n);

// x: n floats; dst: row_size(t, n) bytes of type t.
// Activation types (bit-exact with llama.cpp's reference quantizers):
//   F32 (copy), F16, BF16, Q8_0 (d = amax/127, q = roundf(x/d), half away from zero),
//   Q8_1 (as Q8_0 plus s = fp16(d · Σq)), Q8_K (d = max/-127 in float, q = round-half-even(x·(-127/max)),
//   clamped to 127, bsums = Σq per 16 values).
// Weight types (Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K): reference quantizers with a
// small scale search; their output is valid ggml data with bounded error, not byte-identical to
// llama-quantize.
//
// `rounding` selects the rule of the Q8_0 / Q8_1 quantizers (every other type ignores it):
enum class Q8Rounding {
  Reference,   // llama.cpp quantize_row_q8_0_ref / _q8_1_ref: q = roundf(x · (1/d)), ties away from 0
  CpuBackend,  // llama.cpp's x86 CPU backend (AVX/AVX2 quantize_row_q8_0 / _q8_1, what its matmul
               // uses): q = round-half-even(x · (127/amax)); d and s as above. Reproduces the
               // activations of a llama.cpp x86 build bit for bit.
};
void quantize_row(TensorType t, const float* x, void* dst, int64_t n,
                  Q8Rounding rounding = Q8Rounding::Reference);

// Quantizes n_rows rows of n_cols floats (X is [n_rows, n_cols] row-major) into dst
// ([n_rows] rows of row_size(t, n_cols) bytes). Parallel over rows when pool is given.
void quantize_rows(TensorType t, const float* X, void* dst, int64_t n_rows, int64_t n_cols, ThreadPool* pool,
                   Q8Rounding rounding = Q8Rounding::Reference);

// ---------------------------------------------------------------------------------------------------
// Dot products and matrix multiply.

// *out = Σ_i w[i]·x[i] over n elements; w_row has type w, x_act has type vec_dot_type(w).
void vec_dot(TensorType w, int64_t n, float* out, const void* w_row, const void* x_act);

// The active ISA's dot-product kernel for weight type w, for hot loops that make many calls with one
// type (attention over the KV cache): kernel(n, out, w_row, x_act) behaves as vec_dot but checks
// nothing, so n must be a positive multiple of the block size. Throws "unsupported_tensor_type" like
// vec_dot. The pointer stays valid; it keeps the ISA that was active when it was obtained.
using VecDotKernel = void (*)(int64_t n, float* out, const void* w_row, const void* x_act);
VecDotKernel vec_dot_kernel(TensorType w);

// Y[t][r] = dot(W row r, X_act row t) for r < n_rows, t < n_tokens.
//   W:     [n_rows, n_cols] of type w, row stride row_size(w, n_cols) bytes.
//   X_act: [n_tokens, n_cols] of type vec_dot_type(w), row stride row_size(vec_dot_type(w), n_cols).
//   Y:     [n_tokens, n_rows] float, row-major (Y[t * n_rows + r]).
// Work is split over row blocks on `pool`; each task multiplies its block of weight rows with tiles
// of tokens so the rows stay in cache across tokens (prefill). Allocates nothing. Must not be called
// concurrently on the same pool.
void matmul(TensorType w, const void* W, int64_t n_rows, int64_t n_cols, const void* X_act, int64_t n_tokens,
            float* Y, ThreadPool& pool);
// Same with an explicit output row stride: Y[t * y_stride + r]; y_stride ≥ n_rows (in floats). Lets
// a caller write the products of several weight matrices side by side into one [n_tokens, y_stride]
// buffer. Throws "invalid_argument" when y_stride < n_rows.
void matmul(TensorType w, const void* W, int64_t n_rows, int64_t n_cols, const void* X_act, int64_t n_tokens,
            float* Y, int64_t y_stride, ThreadPool& pool);

// ---------------------------------------------------------------------------------------------------
// Instruction-set dispatch.

enum class Isa : int {
  Scalar = 0,  // portable reference code (the test oracle)
  Avx2 = 1,    // x86-64 AVX2 + FMA + F16C
  Avx512 = 2,  // Avx2 plus AVX-512 F + BW + VL + VNNI (vpdpbusd); kernels without one use those below
  AvxVnni = 3,  // Avx2 plus AVX-VNNI (256-bit VEX vpdpbusd), e.g. CPUs without AVX-512; ranks below Avx512
};

const char* isa_name(Isa isa);                        // "scalar", "avx2", "avxvnni", "avx512"
std::optional<Isa> parse_isa(std::string_view name);  // inverse of isa_name; nullopt otherwise
bool isa_supported(Isa isa);                          // compiled in and supported by this CPU
Isa best_isa();                                       // the fastest supported path
Isa active_isa();                                     // the path in use
// The path chosen at start-up when A3S_POWER_ISA has `value` (null = unset): the named ISA when it
// is supported, otherwise ("auto", unknown names, unsupported ISA) the best supported one.
Isa isa_for_environment(const char* value);
// Why isa_for_environment(value) does not take the path `value` names, for a warning at start-up:
// "A3S_POWER_ISA=… is not an instruction set …" (unknown names, which are matched exactly: lower
// case) or "… is not supported by this CPU …"; nullopt when value is null, empty, "auto" or a
// supported ISA. The value is quoted, cut to 32 characters, quotes, backslashes and anything but printable ASCII as '?'.
std::optional<std::string> isa_environment_warning(const char* value);
// Switches every kernel to `isa`. Throws Error(codes::kInvalidArgument) when it is not supported.
// Not synchronised with kernels running on other threads: call between computations.
void force_isa(Isa isa);

// ---------------------------------------------------------------------------------------------------
// Weights packed at load (resident models). Where the active ISA multiplies a type faster from its
// panel layout (kernel_table.h, PanelKernels::prepack: Q4_0, Q8_0, Q4_K, Q6_K on avx512), a matrix can be packed once
// and multiplied from the panels for any number of tokens: the same bits as matmul on the rows.

// Rows per panel: the packed form of rows [0, r) with r a multiple of this is the first
// packed_weight_bytes(w, r, n_cols) bytes, so a fused matrix's parts starting on a panel are panels too.
inline constexpr int kPackedPanelRows = 16;
// Bytes of the packed form of [n_rows, n_cols] of type w; 0 when the active ISA does not pack w.
size_t packed_weight_bytes(TensorType w, int64_t n_rows, int64_t n_cols);
// Packs W ([n_rows, n_cols] of type w, rows row_size(w, n_cols) apart) into `packed`
// (packed_weight_bytes bytes), in parallel on `pool`; returns the ISA whose layout it wrote. Throws
// Error(codes::kInternal) when packed_weight_bytes is 0.
Isa pack_weight(TensorType w, const void* W, int64_t n_rows, int64_t n_cols, void* packed, ThreadPool& pool);
// Y [n_tokens, n_rows] = X_act · Wᵀ from the packed form. Returns false, computing nothing, when the
// active ISA is not `packed_for` (the caller then uses matmul on the rows).
bool matmul_packed(Isa packed_for, TensorType w, const void* packed, int64_t n_rows, int64_t n_cols, const void* X_act,
                   int64_t n_tokens, float* Y, ThreadPool& pool);

}  // namespace a3s::power::kernels
