// The per-ISA table of kernel entry points behind the public functions of kernels.h.
//
// The scalar table is complete. An ISA file (e.g. avx2/vec_dot.cpp) overrides the entries it
// accelerates in a copy of the scalar table; entries it leaves alone keep the scalar code. Adding an
// instruction set = one new source file with an `install_<isa>` function + one row in dispatch.cpp.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "kernels/f16_pages.h"
#include "model/gguf/tensor_type.h"

namespace a3s::power::kernels {

inline constexpr size_t kTypeSlots = 31;  // TensorType ids are < 31

inline constexpr size_t slot(TensorType t) {
  return static_cast<size_t>(t);
}

// *out = dot(w, x) over n elements (n a multiple of the block size; validated by the caller).
using VecDotFn = void (*)(int64_t n, float* out, const void* w, const void* x);
// Y[t·y_stride + r] = dot(W row r, X row t) for r < n_w, t < n_x; rows are w_stride / x_stride bytes
// apart. Callers keep n_w ≤ 64 and n_x ≤ 64 so the tile stays in L1/L2.
using TileFn = void (*)(int64_t n, const void* W, size_t w_stride, int n_w, const void* X, size_t x_stride,
                        int n_x, float* Y, size_t y_stride);
using QuantizeFn = void (*)(const float* x, void* dst, int64_t n);
using DequantizeFn = void (*)(const void* src, float* dst, int64_t n);
using Fp16ToFp32RowFn = void (*)(const uint16_t* src, float* dst, int64_t n);
using Fp32ToFp16RowFn = void (*)(const float* src, uint16_t* dst, int64_t n);
using ExpRowFn = void (*)(const float* x, float* y, int64_t n);
using DotF16Lanes16Fn = float (*)(const uint16_t* x, const uint16_t* y, int64_t n, int64_t n_padded);
// n_y vectors y[q] against the same rows: out[q][r] (one vector at a time is n_y = 1).
using DotF16Lanes16PagesFn = void (*)(const F16Pages& x, int64_t n_rows, const uint16_t* const* y, int n_y,
                                      int64_t n, int64_t n_padded, float* const* out);

// A cache level for software read-ahead; the values are __builtin_prefetch's locality argument
// (x86: prefetcht0 into the first-level cache, prefetcht1 into the second).
enum class PrefetchInto : int { kL1 = 3, kL2 = 2 };

// Panel kernels (prefill). A panel holds kPanelRows consecutive weight rows of n elements in an
// ISA's interleaved layout, so that one vector lane carries one row: each lane keeps the scalar
// reference's per-(super-)block integer total and its FMA chain, and one vector instruction advances
// kPanelRows rows. A type has panel kernels only where its reference adds one integer total per
// (super-)block, or (Q8_0, Q5_0) keeps eight float lanes per row that a panel can keep too
// (ref/vec_dot.cpp); the results are then the reference's bits.
inline constexpr int kPanelRows = 16;
// pack reads a panel's rows through 32-bit offsets from its first row, so the panel path takes only
// weights whose rows are at most this many bytes apart (wider ones keep the tile kernels).
inline constexpr size_t kMaxPanelRowStride = size_t{INT32_MAX} / kPanelRows;
struct PanelKernels {
  // Bytes of one panel of rows with n elements.
  size_t (*panel_bytes)(int64_t n) = nullptr;
  // Copies rows 0..n_w-1 (n_w ≤ kPanelRows, w_stride bytes apart) into `panel`; missing rows are zero.
  void (*pack)(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) = nullptr;
  // Bytes per token of the activation side data (0: none), and its computation for n_x activation
  // rows (x_stride bytes apart) into aux (aux_bytes(n) bytes per token, consecutive).
  size_t (*aux_bytes)(int64_t n) = nullptr;
  void (*prepare)(int64_t n, const void* X, size_t x_stride, int64_t n_x, void* aux) = nullptr;
  // Y[t·y_stride + r] = dot(row r, X row t) for r < n_w, t < n_x (n_x ≤ 64); aux as `prepare` wrote it
  // (null when aux_bytes is 0).
  void (*run)(int64_t n, const void* panel, int n_w, const void* X, size_t x_stride, const void* aux, int n_x,
              float* Y, size_t y_stride) = nullptr;
  // The panels are about the size of the rows and `run` with few tokens beats the tile kernel, so a
  // resident model's matrices of this type are packed once at load and multiplied from the panels
  // for every number of tokens (kernels.h, pack_weight).
  bool prepack = false;
  // Where `run` asks for the panel bytes ahead of its reads (the AVX-512 kernels come in both forms:
  // panel_read_ahead below).
  PrefetchInto read_ahead = PrefetchInto::kL1;
};

// Plain C arrays (no std templates): ISA files compiled with extra target flags fill this struct
// and must not instantiate library templates whose out-of-line copies the linker could pick for
// code that runs on CPUs without those instructions.
struct KernelTable {
  VecDotFn vec_dot[kTypeSlots] = {};             // indexed by weight type
  // The dot product of matmul with two or more tokens, for types whose reference backend orders it
  // differently from the one-token product (BF16: bf16_pairs.h); null → vec_dot.
  VecDotFn vec_dot_batch[kTypeSlots] = {};
  TileFn tile[kTypeSlots] = {};                  // optional; null → loop over vec_dot
  QuantizeFn quantize[kTypeSlots] = {};          // indexed by destination type
  QuantizeFn quantize_backend[kTypeSlots] = {};  // Q8_0 / Q8_1 with Q8Rounding::CpuBackend
  DequantizeFn dequantize[kTypeSlots] = {};
  Fp16ToFp32RowFn fp16_to_fp32_row = nullptr;
  Fp32ToFp16RowFn fp32_to_fp16_row = nullptr;
  Fp16ToFp32RowFn bf16_to_fp32_row = nullptr;
  Fp32ToFp16RowFn fp32_to_bf16_row = nullptr;
  ExpRowFn exp_row = nullptr;                 // exp_approx.h
  DotF16Lanes16Fn dot_f16_lanes16 = nullptr;  // dot_f16_lanes16.h
  DotF16Lanes16PagesFn dot_f16_lanes16_pages = nullptr;  // contiguous rows are one page
  PanelKernels panel[kTypeSlots] = {};        // optional (run null → tile / vec_dot)
};

// Copies every non-null entry of `over` onto `base` (an ISA's kernels over the scalar table).
void overlay(KernelTable& base, const KernelTable& over);

// The complete scalar reference table (ref/table.cpp).
const KernelTable& scalar_table();

#if defined(A3S_KERNELS_HAVE_AVX2)
// Fills the AVX2+FMA+F16C kernels into an all-null table (the avx2/*.cpp files, compiled with
// -mavx2 -mfma -mf16c). Entries left null fall back to the scalar code.
void install_avx2(KernelTable& t);
// The AVX2 Q4_0 tile (eight rows per pass), which the avx512 path keeps for a single token.
void tile_q4_0_avx2(int64_t n, const void* W, size_t w_stride, int n_w, const void* X, size_t x_stride, int n_x,
                    float* Y, size_t y_stride);
#endif

#if defined(A3S_KERNELS_HAVE_AVXVNNI)
// Fills the 256-bit VNNI kernels in AVX-VNNI's VEX form into an all-null table (avxvnni/*.cpp,
// compiled with -mavxvnni besides the AVX2 flags). Entries left null keep the AVX2 kernel.
void install_avxvnni(KernelTable& t);
#endif

// Where the AVX-512 panel kernels read their bytes ahead into, on a CPU whose CPUID vendor string
// (leaf 0: EBX, EDX, ECX, 12 characters) is `vendor`: the second-level cache on "GenuineIntel", in the
// form whose K-quant requests are spread over each super-block (measured on an Emerald Rapids guest,
// two runs: Q4_0 and Q8_0 panels read 2-7 % faster from memory, Q6_K ones 3-11 %, Q4_K ones 14-16 %;
// avx512/panel.cpp, bench_kernels panel_read_ahead/*);
// the first-level cache on any other vendor, or a null one, as the Zen 5 figures were made. T1 was
// never measured here on AMD, which fills only the second-level cache with it from Zen 4 on and
// was seen to drop such requests there (Wang et al., arXiv 2411.02814).
PrefetchInto panel_read_ahead_for(const char* vendor);
// The rule above for this CPU (dispatch.cpp; the first-level cache where CPUID is not read).
PrefetchInto panel_read_ahead();
// Fills the AVX-512 panel kernels alone, in the form that reads ahead into `into`, into t (for tests
// and bench_kernels, which run both forms on any AVX-512 CPU). False, t untouched, where the AVX-512
// path is not compiled in or this CPU lacks it.
bool install_avx512_panel_for_testing(KernelTable& t, PrefetchInto into);

#if defined(A3S_KERNELS_HAVE_AVX512)
// Fills the AVX-512 (F+BW+VL+VNNI) kernels into an all-null table (the avx512/*.cpp files, compiled
// with -mavx512f -mavx512bw -mavx512vl -mavx512vnni besides the AVX2 flags). Entries left null keep
// the AVX2 kernel.
void install_avx512(KernelTable& t);
// The panel kernels of install_avx512 alone, in the form that reads ahead into `into` (install_avx512
// passes panel_read_ahead()).
void install_avx512_panel(KernelTable& t, PrefetchInto into);
#endif

// The table of the active ISA (dispatch.cpp). Never null.
const KernelTable& active_table();

}  // namespace a3s::power::kernels
