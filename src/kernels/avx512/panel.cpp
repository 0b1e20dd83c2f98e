// AVX-512 VNNI panel kernels (kernel_table.h, PanelKernels): matmul's prefill path for the types
// whose scalar reference adds one exact integer total per (super-)block with one FMA (ref/vec_dot.cpp:
// Q4_0, Q4_K, Q5_K, Q6_K), and for Q8_0 and Q5_0, whose reference keeps eight float lanes per row (two
// rows per vector, below; Q5_0's quants unpacked to signed bytes in Q8_0's panel). A panel interleaves 16 weight rows by 4-byte groups, so int32 lane r of a
// 512-bit vector belongs to row r: vpdpbusd multiplies four weight bytes of each of the 16 rows with
// the same four activation bytes (broadcast from memory) and adds them into the row's lane. Each lane
// then holds the row's exact integer total of the block, scaled and added by one FMA per block in block
// order: the reference's operations, one lane per row, so the results are the reference's bits. The
// weight bytes are unpacked once, at packing, and read as whole vectors; the weight scales are packed as
// 16 lanes too. Per token and 32 elements of 16 rows this is 8 vpdpbusd, where the row-major tile
// kernels (tile.cpp) spend a vector unpack, dot, conversion and FMA per row.
//
// Layouts (one panel = the (super-)blocks of 16 rows, block after block; missing rows are zeros):
//   Q4_0, per block (288 bytes, the size of the 16 rows' blocks): binary16 d[16]; uint32 qs[4][16]
//     (row r's packed nibble bytes 4j..4j+3 in qs[j][r]: the low nibbles are elements 4j.., the high
//     ones 16 + 4j..).
//   Q5_K, per super-block (5248 bytes): float d[16], dmin[16]; int32 sc[8][16]; int32
//     min_pair[8][16] (the sub-block's min in both int16 halves); uint32 q[64][16] (elements 4k..4k+3
//     of row r, unpacked to bytes, in q[k][r]).
//   Q4_K and Q6_K keep their quants as stored (K4N, Q6KN below).
// Q4_0 needs per token and block −8·Σx and the scale as float (prepare → aux), since its quants are
// stored unsigned (q, meaning q − 8); the K-quants take theirs from the Q8_K bsums.
// Every fused multiply-add is written out (the kernels are compiled with -ffp-contract=off).
#include <cstddef>
#include <cstring>

#include "kernels/avx2/common.h"

#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__)
#error "avx512/*.cpp files are compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni"
#endif

namespace a3s::power::kernels {


namespace {

constexpr int kRows = kPanelRows;
static_assert(kRows == 16, "one int32 lane of a 512-bit vector per row");
namespace panel {
constexpr int kTokens = 8;  // tokens per pass over a panel (a kernel's K::kTokens)
}  // namespace panel

// Each pass asks for the panel bytes ahead of the block it starts (kernels/avx2/common.h,
// prefetch_span): a decode step reads every panel once, and the hardware prefetchers alone kept too
// few reads in flight. On a Zen 5 (2 threads) Q4_K and Q6_K panels were
// read from memory at 33-36 GB/s without read-ahead and 55-60 GB/s with it into the first-level cache
// (bench_kernels memory_packed/*), and llama-7b Q4_K_M decode went from 7.8 to 11.9 tokens/s. On an
// Intel Emerald Rapids guest, one token through 512 MiB of panels with 2 threads, variants
// alternating 15 times in one process: into the second-level cache 8 KiB ahead read Q4_K 7-10 %
// faster than into the first-level cache 4 KiB ahead (Q6_K 5-8 %, Q8_0 8 %); 6-32 KiB ahead were
// alike; one request per 128 or 256 bytes instead of per line lost 10-35 %. Split over the thread
// pool as matmul splits decode (bench_kernels panel_read_ahead/*, repetitions interleaved, two runs
// each): Q4_0 +7-12 %, Q4_K +6-10 %, Q8_0 +4-7 %, Q6_K 0 to -3 % before the K-quants' requests were
// spread over their super-blocks (SuperBlockReadAhead below); since, Q4_0 +2-7 %, Q8_0 +2-6 %, Q4_K
// +14-16 % and Q6_K +3-11 %. Each kernel below that reads
// ahead is installed in one of two forms (install_avx512_panel's argument; dispatch picks it by
// panel_read_ahead's rule, kernel_table.h): into the second-level cache 8 KiB ahead, the K-quants'
// requests spread, as measured on the Intel guest, or into the first a page ahead, a block's
// requests at its start, as measured on the Zen 5.
template <PrefetchInto kInto>
constexpr size_t kPanelAhead = kInto == PrefetchInto::kL2 ? 8192 : 4096;

// The read-ahead of the K-quant panels (K4N, Q6KN), whose super-blocks span 37 and 53 cache lines.
// The first-level-cache form asks for a whole super-block at its start, as measured on the Zen 5. The
// second-level-cache form asks for the scales at its start and for each line of quants beside that
// line's load, so the requests are spread over the super-block's arithmetic: on the Intel guest
// (harness above) that read Q4_K panels 9-10 % and Q6_K panels 11-12 % faster than the whole
// super-block at its start, and 4 or 16 KiB ahead instead of 8 were no better. Asking for all of a
// super-block without the loop's counting (one instruction per line, back to back) read half as fast.
template <PrefetchInto kInto>
struct SuperBlockReadAhead {
  static constexpr bool kSpread = kInto == PrefetchInto::kL2;
  // At the start of the super-block at p, of kBytes bytes of which the first kHead hold the scales.
  template <size_t kHead, size_t kBytes>
  static void start(const uint8_t* p) {
    prefetch_span<kInto>(p + kPanelAhead<kInto>, kSpread ? kHead : kBytes);
  }
  // Beside the load of the quants' line at q.
  static void line(const uint8_t* q) {
    if constexpr (kSpread) prefetch_span<kInto>(q + kPanelAhead<kInto>, 64);
  }
};

// acc + the products of each lane's four unsigned bytes of q with the four signed bytes at x (the same
// in every lane), and of its two signed int16 with the two at x: vpdpbusd / vpdpwssd with x broadcast
// from memory by the instruction itself ({1to16}). GCC 12 does not fold _mm512_set1_epi32 of a load into
// these instructions, and a separate vpbroadcastd per product read K-quant panels 1.5-3 % slower from
// memory (one decode token, Emerald Rapids guest, variants alternating in one process).
using Word = int32_t __attribute__((may_alias));  // four bytes read as one memory operand
inline __m512i dpbusd_bcast(__m512i acc, __m512i q, const void* x) {
  asm("vpdpbusd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(q), "m"(*static_cast<const Word*>(x)));
  return acc;
}
inline __m512i dpwssd_bcast(__m512i acc, __m512i q, const void* x) {
  asm("vpdpwssd %2%{1to16%}, %1, %0" : "+v"(acc) : "v"(q), "m"(*static_cast<const Word*>(x)));
  return acc;
}
// int32 → float, rounded to nearest as static_cast<float> (the zero-masked forms here and below: GCC
// 12 warns about the undefined source register of the unmasked intrinsics).
inline __m512 to_float(__m512i v) {
  return _mm512_maskz_cvtepi32_ps(static_cast<__mmask16>(0xFFFF), v);
}
// The 32 bytes at p in both 256-bit halves (zero-masked form, as above).
inline __m512i bcast256(const void* p) {
  return _mm512_maskz_broadcast_i64x4(static_cast<__mmask8>(0xFF), _mm256_loadu_si256(static_cast<const __m256i*>(p)));
}
inline __m512i vec(const uint8_t* p) {
  return _mm512_loadu_si512(p);
}

template <typename Block>
const Block* row_block(const void* W, size_t w_stride, int r, int64_t i) {
  return reinterpret_cast<const Block*>(static_cast<const uint8_t*>(W) + static_cast<size_t>(r) * w_stride) + i;
}

// One 32-bit word of each of a panel's rows: lane r holds the 4 bytes at `at` + r·w_stride, `at` being
// in row 0; the lanes of rows past n_w read nothing and are zero. Packing with it takes one gather
// per 64 bytes of panel. Offsets are int32: w_stride ≤ kMaxPanelRowStride (matmul.cpp keeps wider
// rows off the panel path).
struct RowWords {
  __mmask16 rows;
  __m512i offset;
  RowWords(size_t w_stride, int n_w)
      : rows(static_cast<__mmask16>(n_w >= 16 ? 0xFFFF : (1u << n_w) - 1u)),
        offset(_mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                  _mm512_set1_epi32(static_cast<int>(w_stride)))) {}
  __m512i operator()(const uint8_t* at) const {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), rows, offset, at, 1);
  }
};
// The low 16 bits of each lane, as 16 binary16 values at p.
inline void store_low_halves(uint8_t* p, __m512i v) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_maskz_cvtepi32_epi16(static_cast<__mmask16>(0xFFFF), v));
}

// Stores lanes r < n_w of acc[t] at Y + t·y_stride.
template <int NT>
void store_rows(const __m512* acc, int n_w, float* Y, size_t y_stride) {
  const __mmask16 m = static_cast<__mmask16>((1u << n_w) - 1u);
  for (int t = 0; t < NT; ++t) _mm512_mask_storeu_ps(Y + static_cast<size_t>(t) * y_stride, m, acc[t]);
}

// Runs K::pass<NT> over n_x tokens in passes of K::kTokens (≤ 8), reading ahead into kInto.
template <class K, PrefetchInto kInto>
void run_tokens(int64_t n, const void* panel, int n_w, const void* X, size_t x_stride, const void* aux, int n_x,
                float* Y, size_t y_stride) {
  const auto* x = static_cast<const uint8_t*>(X);
  const auto* a = static_cast<const uint8_t*>(aux);
  const size_t a_stride = K::aux_stride(n);
  auto at = [&](int t, auto pass) {
    pass(n, static_cast<const uint8_t*>(panel), n_w, x + static_cast<size_t>(t) * x_stride, x_stride,
         a != nullptr ? a + static_cast<size_t>(t) * a_stride : nullptr, Y + static_cast<size_t>(t) * y_stride,
         y_stride);
  };
  int t = 0;
  for (; t + K::kTokens <= n_x; t += K::kTokens) at(t, K::template pass<K::kTokens, kInto>);
  switch (n_x - t) {
    case 7: at(t, K::template pass<7, kInto>); break;
    case 6: at(t, K::template pass<6, kInto>); break;
    case 5: at(t, K::template pass<5, kInto>); break;
    case 4: at(t, K::template pass<4, kInto>); break;
    case 3: at(t, K::template pass<3, kInto>); break;
    case 2: at(t, K::template pass<2, kInto>); break;
    case 1: at(t, K::template pass<1, kInto>); break;
    default: break;
  }
}

// ---- Q4_0 ----------------------------------------------------------------------------------------

// The activation side data of Q8_0 activations: the scale as float and −kOffset · Σ x of each block
// (kOffset: what the stored unsigned weight quants exceed their signed values by).
struct BlockAux {
  float dx;
  int32_t bias;
};

template <int kOffset>
void prepare_q8_0(int64_t n, const void* X, size_t x_stride, int64_t n_x, void* aux) {
  auto* out = static_cast<BlockAux*>(aux);
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
  for (int64_t t = 0; t < n_x; ++t) {
    const auto* b = reinterpret_cast<const BlockQ8_0*>(static_cast<const uint8_t*>(X) + t * x_stride);
    for (int64_t i = 0; i < n / kQK; ++i) {
      // Σ (x + 128) by byte sums, then Σ x = that − 32·128.
      const __m256i s = _mm256_sad_epu8(_mm256_xor_si256(load256(b[i].qs), flip), _mm256_setzero_si256());
      const int64_t sum = _mm256_extract_epi64(s, 0) + _mm256_extract_epi64(s, 1) + _mm256_extract_epi64(s, 2) +
                          _mm256_extract_epi64(s, 3) - kQK * 128;
      out->dx = h2f(b[i].d);
      out->bias = static_cast<int32_t>(-kOffset * sum);
      ++out;
    }
  }
}

size_t aux_q8_0(int64_t n) {
  return static_cast<size_t>(n / kQK) * sizeof(BlockAux);
}

struct Q40 {
  static constexpr int kTokens = panel::kTokens;
  static constexpr size_t kScales = 32, kBlock = kScales + 4 * 64;
  using Aux = BlockAux;
  static size_t panel_bytes(int64_t n) { return static_cast<size_t>(n / kQK) * kBlock; }
  static size_t aux_stride(int64_t n) { return aux_q8_0(n); }

  static void pack(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) {
    auto* out = static_cast<uint8_t*>(panel);
    const RowWords words(w_stride, n_w);
    for (int64_t i = 0; i < n / kQK; ++i) {
      uint8_t* p = out + static_cast<size_t>(i) * kBlock;
      const auto* b = reinterpret_cast<const uint8_t*>(row_block<BlockQ4_0>(W, w_stride, 0, i));
      store_low_halves(p, words(b + offsetof(BlockQ4_0, d)));
      for (int j = 0; j < 4; ++j) _mm512_storeu_si512(p + kScales + 64 * j, words(b + offsetof(BlockQ4_0, qs) + 4 * j));
    }
  }

  template <int NT, PrefetchInto kInto>
  static void pass(int64_t n, const uint8_t* panel, int n_w, const uint8_t* X, size_t x_stride, const uint8_t* aux,
                   float* Y, size_t y_stride) {
    const BlockQ8_0* x[NT];
    const Aux* ax[NT];
    const size_t a_stride = aux_stride(n);
    for (int t = 0; t < NT; ++t) {
      x[t] = reinterpret_cast<const BlockQ8_0*>(X + static_cast<size_t>(t) * x_stride);
      ax[t] = reinterpret_cast<const Aux*>(aux + static_cast<size_t>(t) * a_stride);
    }
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    __m512 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
    for (int64_t i = 0; i < n / kQK; ++i) {
      const uint8_t* p = panel + static_cast<size_t>(i) * kBlock;
      prefetch_span<kInto>(p + kPanelAhead<kInto>, kBlock);
      const __m512 dw = _mm512_maskz_cvtph_ps(static_cast<__mmask16>(0xFFFF), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
      __m512i lo[4], hi[4];
      for (int j = 0; j < 4; ++j) {
        const __m512i q = vec(p + kScales + 64 * j);
        lo[j] = _mm512_and_si512(q, m4);
        hi[j] = _mm512_and_si512(_mm512_srli_epi16(q, 4), m4);
      }
      for (int t = 0; t < NT; ++t) {
        const int8_t* xq = x[t][i].qs;
        // With few tokens the eight products go into kChains independent sums (the latency of one
        // chain of eight vpdpbusd bounds decode); integer sums are exact in any order.
        constexpr int kChains = NT <= 2 ? 4 : 1;
        __m512i chain[kChains];
        chain[0] = _mm512_set1_epi32(ax[t][i].bias);
        for (int c = 1; c < kChains; ++c) chain[c] = _mm512_setzero_si512();
        for (int j = 0; j < 4; ++j) chain[j % kChains] = dpbusd_bcast(chain[j % kChains], lo[j], xq + 4 * j);
        for (int j = 0; j < 4; ++j)
          chain[(j + 2) % kChains] = dpbusd_bcast(chain[(j + 2) % kChains], hi[j], xq + 16 + 4 * j);
        __m512i s = chain[0];
        for (int c = 1; c < kChains; ++c) s = _mm512_add_epi32(s, chain[c]);
        const __m512 d = _mm512_mul_ps(dw, _mm512_set1_ps(ax[t][i].dx));
        acc[t] = _mm512_fmadd_ps(to_float(s), d, acc[t]);
      }
    }
    store_rows<NT>(acc, n_w, Y, y_stride);
  }
};

// ---- Q8_0 ----------------------------------------------------------------------------------------

// Q8_0 keeps the reference's eight float lanes per row (llama.cpp's x86 order, ref/vec_dot.cpp): one
// 512-bit vector holds two rows, each in a 256-bit half with the reference's lane layout (lane j: the
// products of bytes 4j..4j+3), and the FMA per lane and block in block order; the halves are summed at
// the end in hsum's order. The weights are stored plus 128 (unsigned for vpdpbusd) and the activation
// side data removes 128 · Σ of each lane's four activation bytes.
// Per block (544 bytes, the size of the 16 rows' blocks): binary16 d[16] (row r's scale), then for each
// pair p of rows 2p, 2p+1: uint8 q[64] (row 2p's 32 bytes, then row 2p+1's). A pair's products
// d_w · d_x are spread over its two halves at run time (one permute per pair, block and token).
struct Q80 {
  static constexpr int kTokens = 4;     // with four pairs of rows per pass: 16 accumulators
  static constexpr int kPairsPerPass = 4;
  static constexpr size_t kScales = 32, kPair = 64, kBlock = kScales + 8 * kPair;
  struct Aux {
    int32_t bias[8];  // −128 · Σ of activation bytes 4l..4l+3
    float dx;
    int32_t pad[7];
  };
  static_assert(sizeof(Aux) == 64);
  static size_t panel_bytes(int64_t n) { return static_cast<size_t>(n / kQK) * kBlock; }
  static size_t aux_stride(int64_t n) { return static_cast<size_t>(n / kQK) * sizeof(Aux); }

  // Packs blocks of type Block whose 32 quants quants(block) gives as signed bytes.
  template <class Block, class Quants>
  static void pack_signed(int64_t n, const void* W, size_t w_stride, int n_w, void* panel, Quants quants) {
    auto* out = static_cast<uint8_t*>(panel);
    std::memset(out, 0, panel_bytes(n));
    const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
    for (int64_t i = 0; i < n / kQK; ++i) {
      uint8_t* blk = out + static_cast<size_t>(i) * kBlock;
      for (int r = 0; r < n_w; ++r) {
        const Block* b = row_block<Block>(W, w_stride, r, i);
        std::memcpy(blk + 2 * static_cast<size_t>(r), &b->d, 2);
        uint8_t* p = blk + kScales + static_cast<size_t>(r / 2) * kPair;
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 32 * (r % 2)), _mm256_xor_si256(quants(b), flip));
      }
    }
  }
  static void pack(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) {
    pack_signed<BlockQ8_0>(n, W, w_stride, n_w, panel, [](const BlockQ8_0* b) { return load256(b->qs); });
  }

  static void prepare(int64_t n, const void* X, size_t x_stride, int64_t n_x, void* aux) {
    auto* out = static_cast<Aux*>(aux);
    const __m256i ones = _mm256_set1_epi8(1);
    for (int64_t t = 0; t < n_x; ++t) {
      const auto* b = reinterpret_cast<const BlockQ8_0*>(static_cast<const uint8_t*>(X) + t * x_stride);
      for (int64_t i = 0; i < n / kQK; ++i) {
        // Lane l: Σ of bytes 4l..4l+3 (1 · x, exact), times −128.
        const __m256i lanes = _mm256_dpbusd_epi32(_mm256_setzero_si256(), ones, load256(b[i].qs));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out->bias), _mm256_slli_epi32(_mm256_sub_epi32(_mm256_setzero_si256(), lanes), 7));
        out->dx = h2f(b[i].d);
        ++out;
      }
    }
  }

  template <int NT, PrefetchInto kInto>
  static void pass(int64_t n, const uint8_t* panel, int n_w, const uint8_t* X, size_t x_stride, const uint8_t* aux,
                   float* Y, size_t y_stride) {
    // With one or two tokens (decode) all eight pairs go in one pass, so a panel read from memory is
    // read once; with more, four pairs per pass keep the accumulators in registers.
    constexpr int kPP = NT <= 2 ? 8 : kPairsPerPass;
    const BlockQ8_0* x[NT];
    const Aux* ax[NT];
    for (int t = 0; t < NT; ++t) {
      x[t] = reinterpret_cast<const BlockQ8_0*>(X + static_cast<size_t>(t) * x_stride);
      ax[t] = reinterpret_cast<const Aux*>(aux + static_cast<size_t>(t) * aux_stride(n));
    }
    for (int p0 = 0; 2 * p0 < n_w; p0 += kPP) {
      // Lanes 0-7 of pair p's scale vector take row 2(p0 + p)'s scale, lanes 8-15 row 2(p0 + p) + 1's.
      __m512i spread[kPP];
      for (int p = 0; p < kPP; ++p) {
        const int r = 2 * (p0 + p);
        spread[p] = _mm512_set_epi32(r + 1, r + 1, r + 1, r + 1, r + 1, r + 1, r + 1, r + 1, r, r, r, r, r, r, r, r);
      }
      __m512 acc[kPP][NT];
      for (auto& row : acc) {
        for (auto& a : row) a = _mm512_setzero_ps();
      }
      for (int64_t i = 0; i < n / kQK; ++i) {
        const uint8_t* blk = panel + static_cast<size_t>(i) * kBlock;
        if (p0 == 0) prefetch_span<kInto>(blk + kPanelAhead<kInto>, kBlock);
        const __m512 dw = _mm512_maskz_cvtph_ps(static_cast<__mmask16>(0xFFFF), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
        __m512i q[kPP];
        for (int p = 0; p < kPP; ++p) q[p] = vec(blk + kScales + static_cast<size_t>(p0 + p) * kPair);
        for (int t = 0; t < NT; ++t) {
          const __m512i xq = bcast256(x[t][i].qs);
          const __m512i bias = bcast256(ax[t][i].bias);
          // d_w · d_x of the 16 rows, then spread per pair: the products of spreading first (the
          // same lanes multiplied by the same dx), with one multiplication per token and block.
          const __m512 d = _mm512_mul_ps(dw, _mm512_set1_ps(ax[t][i].dx));
          for (int p = 0; p < kPP; ++p) {
            const __m512i s = _mm512_dpbusd_epi32(bias, q[p], xq);
            const __m512 dp = _mm512_maskz_permutexvar_ps(static_cast<__mmask16>(0xFFFF), spread[p], d);
            acc[p][t] = _mm512_fmadd_ps(to_float(s), dp, acc[p][t]);
          }
        }
      }
      for (int p = 0; p < kPP; ++p) {
        for (int half = 0; half < 2; ++half) {
          const int r = 2 * (p0 + p) + half;
          if (r >= n_w) break;
          for (int t = 0; t < NT; ++t) {
            alignas(64) float v[16];
            _mm512_store_ps(v, acc[p][t]);
            Y[static_cast<size_t>(t) * y_stride + static_cast<size_t>(r)] = hsum(_mm256_load_ps(v + 8 * half));
          }
        }
      }
    }
  }
};

// ---- Q5_0 -----------------------------------------------------------------------------------------

// Q5_0 in Q8_0's panel: each block's quants unpacked to signed bytes (q − 16), so Q8_0's pass, prepare
// and side data serve it. The reference's arithmetic for Q5_0 is Q8_0's (eight lanes of 4-byte
// sums, one FMA per lane and block), so the results are its bits. Packed per call (the panel is
// 1.55× the rows).
struct Q50 : Q80 {
  static void pack(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) {
    const __m256i high = _mm256_set1_epi8(static_cast<char>(0xF0));
    pack_signed<BlockQ5_0>(n, W, w_stride, n_w, panel, [&](const BlockQ5_0* b) {
      uint32_t qh;
      std::memcpy(&qh, b->qh, 4);
      // A quant whose fifth bit is clear is its nibble − 16: the high nibble set (two's complement).
      return _mm256_or_si256(unpack_nibbles(b->qs), _mm256_andnot_si256(spread_bits(qh), high));
    });
  }
};

// ---- Q5_K (and Q4_K unpacked to bytes, not installed: Q4_K keeps its nibbles, K4N below) ---------

template <bool kFive>
struct K4 {
  using Block = std::conditional_t<kFive, BlockQ5_K, BlockQ4_K>;
  static constexpr int kTokens = panel::kTokens;
  static constexpr size_t kSc = 128, kMin = 128 + 8 * 64, kQ = kMin + 8 * 64;
  static constexpr size_t kBlock = kQ + 64 * 64;
  static size_t panel_bytes(int64_t n) { return static_cast<size_t>(n / kQKK) * kBlock; }
  static size_t aux_stride(int64_t) { return 0; }

  static void pack(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) {
    auto* out = static_cast<uint8_t*>(panel);
    std::memset(out, 0, panel_bytes(n));
    alignas(32) uint8_t q[kQKK];
    for (int64_t i = 0; i < n / kQKK; ++i) {
      uint8_t* p = out + static_cast<size_t>(i) * kBlock;
      for (int r = 0; r < n_w; ++r) {
        const Block* b = row_block<Block>(W, w_stride, r, i);
        const float d = h2f(b->d), dmin = h2f(b->dmin);
        std::memcpy(p + 4 * r, &d, 4);
        std::memcpy(p + 64 + 4 * r, &dmin, 4);
        for (int s = 0; s < 8; ++s) {
          uint8_t sc, m;
          k4_scale_min(s, b->scales, &sc, &m);
          const int32_t sc32 = sc, pair = static_cast<int32_t>(m) | (static_cast<int32_t>(m) << 16);
          std::memcpy(p + kSc + 64 * s + 4 * r, &sc32, 4);
          std::memcpy(p + kMin + 64 * s + 4 * r, &pair, 4);
        }
        __m256i qh = _mm256_setzero_si256();
        if constexpr (kFive) qh = load256(b->qh);
        for (int c = 0; c < 4; ++c) {
          __m256i lo, hi;
          k4_pair<kFive>(b->qs, qh, c, &lo, &hi);
          _mm256_store_si256(reinterpret_cast<__m256i*>(q + 64 * c), lo);
          _mm256_store_si256(reinterpret_cast<__m256i*>(q + 64 * c + 32), hi);
        }
        for (int k = 0; k < 64; ++k) std::memcpy(p + kQ + 64 * k + 4 * r, q + 4 * k, 4);
      }
    }
  }

  // kInto is not used: these panels are packed per call into scratch that stays in L2 (matmul.cpp).
  template <int NT, PrefetchInto kInto>
  static void pass(int64_t n, const uint8_t* panel, int n_w, const uint8_t* X, size_t x_stride, const uint8_t*,
                   float* Y, size_t y_stride) {
    const BlockQ8_K* x[NT];
    for (int t = 0; t < NT; ++t) x[t] = reinterpret_cast<const BlockQ8_K*>(X + static_cast<size_t>(t) * x_stride);
    __m512 sum[NT], mins[NT];
    for (int t = 0; t < NT; ++t) sum[t] = mins[t] = _mm512_setzero_ps();
    for (int64_t i = 0; i < n / kQKK; ++i) {
      const uint8_t* p = panel + static_cast<size_t>(i) * kBlock;
      const __m512 dw = _mm512_loadu_ps(p);
      const __m512 dmin = _mm512_loadu_ps(p + 64);
      // Σ_s min_s · (bsum 2s + bsum 2s+1): vpdpwssd with the bsums pair of sub-block s broadcast.
      for (int t = 0; t < NT; ++t) {
        __m512i md = _mm512_setzero_si512();
        for (int s = 0; s < 8; ++s) md = dpwssd_bcast(md, vec(p + kMin + 64 * s), x[t][i].bsums + 2 * s);
        mins[t] = _mm512_fmadd_ps(to_float(md), _mm512_mul_ps(dmin, _mm512_set1_ps(x[t][i].d)), mins[t]);
      }
      __m512i total[NT];
      for (int t = 0; t < NT; ++t) total[t] = _mm512_setzero_si512();
      for (int s = 0; s < 8; ++s) {
        __m512i q[8];
        for (int k = 0; k < 8; ++k) q[k] = vec(p + kQ + 64 * (8 * s + k));
        const __m512i sc = vec(p + kSc + 64 * s);
        for (int t = 0; t < NT; ++t) {
          const int8_t* xq = x[t][i].qs + 32 * s;
          __m512i d0 = dpbusd_bcast(_mm512_setzero_si512(), q[0], xq);
          __m512i d1 = dpbusd_bcast(_mm512_setzero_si512(), q[1], xq + 4);
          for (int k = 2; k < 8; k += 2) {
            d0 = dpbusd_bcast(d0, q[k], xq + 4 * k);
            d1 = dpbusd_bcast(d1, q[k + 1], xq + 4 * k + 4);
          }
          total[t] = _mm512_add_epi32(total[t], _mm512_mullo_epi32(_mm512_add_epi32(d0, d1), sc));
        }
      }
      for (int t = 0; t < NT; ++t)
        sum[t] = _mm512_fmadd_ps(to_float(total[t]), _mm512_mul_ps(dw, _mm512_set1_ps(x[t][i].d)), sum[t]);
    }
    __m512 out[NT];
    for (int t = 0; t < NT; ++t) out[t] = _mm512_sub_ps(sum[t], mins[t]);
    store_rows<NT>(out, n_w, Y, y_stride);
  }
};

// ---- Q4_K, packed nibbles ----------------------------------------------------------------------------

// Q4_K keeps its quants as nibbles in the panel, so a panel is about the size of its rows and a
// resident model's Q4_K matrices are packed once at load (kernels.h, pack_weight) and decoded from
// the panels. Per super-block (2368 bytes; the 16 rows' blocks take 2304): binary16 d[16],
// dmin[16]; uint8 sc[8][16], min[8][16] (the 6-bit scale and min of sub-block s of row r at [s][r]);
// uint32 q[4][8][16] (bytes 32c + 4g .. 32c + 4g + 3 of row r's quants in q[c][g][r]: their low
// nibbles are elements 64c + 4g.., of sub-block 2c, the high ones 64c + 32 + 4g.., of sub-block
// 2c + 1). The arithmetic is K4's: the same integer totals and float operations, the same bits.
struct K4N {
  static constexpr int kTokens = panel::kTokens;
  static constexpr size_t kDmin = 32, kSc = 64, kMin = kSc + 128, kQ = kMin + 128;
  static constexpr size_t kBlock = kQ + 32 * 64;
  static size_t panel_bytes(int64_t n) { return static_cast<size_t>(n / kQKK) * kBlock; }
  static size_t aux_stride(int64_t) { return 0; }

  // The 6-bit scales are unpacked for 16 rows at once (k4_scale_min's arithmetic, lane by lane).
  static void pack(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) {
    auto* out = static_cast<uint8_t*>(panel);
    const auto all = static_cast<__mmask16>(0xFFFF);
    const RowWords words(w_stride, n_w);
    const __m512i low6 = _mm512_set1_epi32(63), low4 = _mm512_set1_epi32(0xF), byte = _mm512_set1_epi32(0xFF);
    auto byte_of = [&](__m512i w, int j) { return _mm512_and_si512(_mm512_maskz_srli_epi32(all, w, 8 * j), byte); };
    auto top2 = [&](__m512i v) { return _mm512_maskz_slli_epi32(all, _mm512_maskz_srli_epi32(all, v, 6), 4); };
    auto store_bytes = [&](uint8_t* p, __m512i v) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_maskz_cvtepi32_epi8(all, v));
    };
    for (int64_t i = 0; i < n / kQKK; ++i) {
      uint8_t* p = out + static_cast<size_t>(i) * kBlock;
      const auto* b = reinterpret_cast<const uint8_t*>(row_block<BlockQ4_K>(W, w_stride, 0, i));
      const __m512i d_dmin = words(b + offsetof(BlockQ4_K, d));  // d in the low half, dmin in the high one
      store_low_halves(p, d_dmin);
      store_low_halves(p + kDmin, _mm512_maskz_srli_epi32(all, d_dmin, 16));
      const uint8_t* s = b + offsetof(BlockQ4_K, scales);
      const __m512i w0 = words(s), w1 = words(s + 4), w2 = words(s + 8);
      for (int j = 0; j < 4; ++j) {
        const __m512i hi = byte_of(w2, j);
        store_bytes(p + kSc + 16 * j, _mm512_and_si512(byte_of(w0, j), low6));
        store_bytes(p + kMin + 16 * j, _mm512_and_si512(byte_of(w1, j), low6));
        store_bytes(p + kSc + 16 * (j + 4), _mm512_or_si512(_mm512_and_si512(hi, low4), top2(byte_of(w0, j))));
        store_bytes(p + kMin + 16 * (j + 4), _mm512_or_si512(_mm512_maskz_srli_epi32(all, hi, 4), top2(byte_of(w1, j))));
      }
      const uint8_t* q = b + offsetof(BlockQ4_K, qs);
      for (int k = 0; k < 32; ++k) _mm512_storeu_si512(p + kQ + 64 * k, words(q + 4 * k));
    }
  }

  template <int NT, PrefetchInto kInto>
  static void pass(int64_t n, const uint8_t* panel, int n_w, const uint8_t* X, size_t x_stride, const uint8_t*,
                   float* Y, size_t y_stride) {
    const BlockQ8_K* x[NT];
    for (int t = 0; t < NT; ++t) x[t] = reinterpret_cast<const BlockQ8_K*>(X + static_cast<size_t>(t) * x_stride);
    const auto all = static_cast<__mmask16>(0xFFFF);
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    // With few tokens each sub-block's eight products go into four sums (the latency of one chain of
    // vpdpbusd bounds decode); integer sums are exact in any order.
    constexpr bool kSplit = NT <= 2;
    __m512 sum[NT], mins[NT];
    for (int t = 0; t < NT; ++t) sum[t] = mins[t] = _mm512_setzero_ps();
    for (int64_t i = 0; i < n / kQKK; ++i) {
      const uint8_t* p = panel + static_cast<size_t>(i) * kBlock;
      SuperBlockReadAhead<kInto>::template start<kQ, kBlock>(p);
      const __m512 dw = _mm512_maskz_cvtph_ps(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
      const __m512 dmin = _mm512_maskz_cvtph_ps(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kDmin)));
      // Σ_s min_s · (bsum 2s + bsum 2s+1): vpdpwssd with the min in both int16 halves of its lane.
      __m512i min_pair[8];
      for (int sb = 0; sb < 8; ++sb) {
        const __m512i m = _mm512_maskz_cvtepu8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kMin + 16 * sb)));
        min_pair[sb] = _mm512_or_si512(m, _mm512_maskz_slli_epi32(all, m, 16));
      }
      for (int t = 0; t < NT; ++t) {
        __m512i md = _mm512_setzero_si512();
        for (int sb = 0; sb < 8; ++sb) md = dpwssd_bcast(md, min_pair[sb], x[t][i].bsums + 2 * sb);
        mins[t] = _mm512_fmadd_ps(to_float(md), _mm512_mul_ps(dmin, _mm512_set1_ps(x[t][i].d)), mins[t]);
      }
      // The high nibbles stay in place (q & 0xF0, 16 times their value): their products are 16 times
      // too large, and so are the low nibbles' once their scale is taken 16 times. The super-block's
      // total is then exactly 16 times the integer sum, and one shift gives the sum (|16 · sum| ≤
      // 8 sub-blocks · 63 · 32 · 240 · 128 < 2^31). One mask per line instead of a shift and a mask.
      __m512i total[NT];
      for (int t = 0; t < NT; ++t) total[t] = _mm512_setzero_si512();
      for (int c = 0; c < 4; ++c) {
        __m512i lo[8], hi[8];
        for (int g = 0; g < 8; ++g) {
          const uint8_t* line = p + kQ + 64 * (8 * c + g);
          SuperBlockReadAhead<kInto>::line(line);
          const __m512i q = vec(line);
          lo[g] = _mm512_and_si512(q, m4);
          hi[g] = _mm512_maskz_andnot_epi32(all, m4, q);
        }
        const __m512i sc_lo = _mm512_maskz_slli_epi32(
            all, _mm512_maskz_cvtepu8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kSc + 16 * (2 * c)))), 4);
        const __m512i sc_hi = _mm512_maskz_cvtepu8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kSc + 16 * (2 * c + 1))));
        for (int t = 0; t < NT; ++t) {
          const int8_t* xq = x[t][i].qs + 64 * c;
          for (int h = 0; h < 2; ++h) {  // sub-block 2c (low nibbles), then 2c + 1 (high nibbles)
            const __m512i* q = h == 0 ? lo : hi;
            const int8_t* xs = xq + 32 * h;
            __m512i d0 = dpbusd_bcast(_mm512_setzero_si512(), q[0], xs);
            __m512i d1 = dpbusd_bcast(_mm512_setzero_si512(), q[1], xs + 4);
            if constexpr (kSplit) {
              __m512i d2 = dpbusd_bcast(_mm512_setzero_si512(), q[2], xs + 8);
              __m512i d3 = dpbusd_bcast(_mm512_setzero_si512(), q[3], xs + 12);
              d0 = dpbusd_bcast(d0, q[4], xs + 16);
              d1 = dpbusd_bcast(d1, q[5], xs + 20);
              d2 = dpbusd_bcast(d2, q[6], xs + 24);
              d3 = dpbusd_bcast(d3, q[7], xs + 28);
              d0 = _mm512_add_epi32(d0, d2);
              d1 = _mm512_add_epi32(d1, d3);
            } else {
              for (int k = 2; k < 8; k += 2) {
                d0 = dpbusd_bcast(d0, q[k], xs + 4 * k);
                d1 = dpbusd_bcast(d1, q[k + 1], xs + 4 * k + 4);
              }
            }
            total[t] = _mm512_add_epi32(total[t], _mm512_mullo_epi32(_mm512_add_epi32(d0, d1), h == 0 ? sc_lo : sc_hi));
          }
        }
      }
      for (int t = 0; t < NT; ++t)
        sum[t] = _mm512_fmadd_ps(to_float(_mm512_maskz_srai_epi32(all, total[t], 4)), _mm512_mul_ps(dw, _mm512_set1_ps(x[t][i].d)), sum[t]);
    }
    __m512 out[NT];
    for (int t = 0; t < NT; ++t) out[t] = _mm512_sub_ps(sum[t], mins[t]);
    store_rows<NT>(out, n_w, Y, y_stride);
  }
};

// ---- Q6_K, packed 6-bit quants -------------------------------------------------------------------

// Q6_K keeps its quants as stored (four low bits in ql, two high bits in qh) in the panel, so a panel
// is about the size of its rows and a resident model's Q6_K matrices are packed once at load and
// decoded from the panels, like Q4_K's. Per super-block (3392 bytes; the 16 rows' blocks take 3360):
// binary16 d[16]; int8 sc[16][16] (the scale of group g, elements 16g..16g+15, of row r at [g][r]);
// 32 bytes of padding (the quants start on a cache line); uint32 ql[32][16], qh[16][16] (bytes
// 4k..4k+3 of row r's ql / qh in [k][r]). Element 128h + 32c + l of a row (h < 2, c < 4, l < 32) is
// the low (c < 2) or high (c ≥ 2) nibble of ql byte 64h + 32(c % 2) + l, with bits 2c, 2c+1 of qh
// byte 32h + l as bits 4 and 5: unsigned, meaning q − 32. Per row and group g the exact integer
// Σ (q − 32)·x = Σ q·x − 32·bsum_g, times sc_g, summed over the groups and added with one FMA (d_w·d_x)
// per super-block: the scalar reference's operations (ref/vec_dot.cpp), the same bits.
struct Q6KN {
  static constexpr int kTokens = panel::kTokens;
  static constexpr size_t kSc = 32, kQl = kSc + 16 * 16 + 32, kQh = kQl + 32 * 64;
  static constexpr size_t kBlock = kQh + 16 * 64;
  static_assert(kQl % 64 == 0 && kBlock % 64 == 0, "quants on whole cache lines");
  static size_t panel_bytes(int64_t n) { return static_cast<size_t>(n / kQKK) * kBlock; }
  static size_t aux_stride(int64_t) { return 0; }

  static void pack(int64_t n, const void* W, size_t w_stride, int n_w, void* panel) {
    auto* out = static_cast<uint8_t*>(panel);
    const auto all = static_cast<__mmask16>(0xFFFF);
    const RowWords words(w_stride, n_w);
    for (int64_t i = 0; i < n / kQKK; ++i) {
      uint8_t* p = out + static_cast<size_t>(i) * kBlock;
      const auto* b = reinterpret_cast<const uint8_t*>(row_block<BlockQ6_K>(W, w_stride, 0, i));
      // d is the block's last two bytes: the word that ends with it (scales 14, 15 and d), high half.
      store_low_halves(p, _mm512_maskz_srli_epi32(all, words(b + offsetof(BlockQ6_K, d) - 2), 16));
      for (int m = 0; m < 4; ++m) {
        const __m512i w = words(b + offsetof(BlockQ6_K, scales) + 4 * m);
        for (int j = 0; j < 4; ++j) {  // the low byte of each lane (truncating conversion)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(p + kSc + 16 * (4 * m + j)),
                           _mm512_maskz_cvtepi32_epi8(all, _mm512_maskz_srli_epi32(all, w, 8 * j)));
        }
      }
      std::memset(p + kSc + 16 * 16, 0, kQl - kSc - 16 * 16);
      for (int k = 0; k < 32; ++k) _mm512_storeu_si512(p + kQl + 64 * k, words(b + offsetof(BlockQ6_K, ql) + 4 * k));
      for (int k = 0; k < 16; ++k) _mm512_storeu_si512(p + kQh + 64 * k, words(b + offsetof(BlockQ6_K, qh) + 4 * k));
    }
  }

  // The quants of group 8h + 2c + jj (elements 128h + 32c + 16jj .. +15) of the 16 rows, four bytes
  // per row and vector, from the ql words `ql` (c % 2 == 0: ql words 16h + 4jj + j, else 16h + 8 +
  // 4jj + j) and the qh words 8h + 4jj + j masked to the high bits of c and c + 2 (`qh2`: qh & 0x33
  // per byte for c even, qh & 0xCC for c odd). The ternary logic takes a byte's bits 0-3 from the
  // low nibble and bits 4-7 from `high`, whose bits 4-5 are c's two high bits and bits 6-7 zero once
  // shifted; what a 16-bit shift carries into bits 0-3 is dropped. C is a template argument so that
  // each group's unpacking is straight-line code (a runtime c left a three-way branch per vector).
  template <int C>
  static void unpack_group(const __m512i ql[4], const __m512i qh2[4], __m512i q[4]) {
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    constexpr int kLowNibble = 0xE4;  // ternary logic: (A & C) | (B & ~C), C = 0x0F per byte
    for (int j = 0; j < 4; ++j) {
      __m512i high;
      if constexpr (C == 0) high = _mm512_slli_epi16(qh2[j], 4);  // bits 0-1 to 4-5
      else if constexpr (C == 1) high = _mm512_slli_epi16(qh2[j], 2);  // bits 2-3 to 4-5
      else if constexpr (C == 2) high = qh2[j];  // bits 4-5 in place
      else high = _mm512_srli_epi16(qh2[j], 2);  // bits 6-7 to 4-5 (the next byte's 0-1 are masked off)
      const __m512i low = C < 2 ? ql[j] : _mm512_srli_epi16(ql[j], 4);
      q[j] = _mm512_ternarylogic_epi32(low, high, m4, kLowNibble);
    }
  }

  template <int NT, PrefetchInto kInto>
  static void pass(int64_t n, const uint8_t* panel, int n_w, const uint8_t* X, size_t x_stride, const uint8_t*,
                   float* Y, size_t y_stride) {
    const BlockQ8_K* x[NT];
    for (int t = 0; t < NT; ++t) x[t] = reinterpret_cast<const BlockQ8_K*>(X + static_cast<size_t>(t) * x_stride);
    const auto all = static_cast<__mmask16>(0xFFFF);
    // With few tokens a group's four products go into two sums (the latency of one chain of
    // vpdpbusd bounds decode); integer sums are exact in any order.
    constexpr bool kSplit = NT <= 2;
    __m512 acc[NT];
    for (int t = 0; t < NT; ++t) acc[t] = _mm512_setzero_ps();
    for (int64_t i = 0; i < n / kQKK; ++i) {
      const uint8_t* p = panel + static_cast<size_t>(i) * kBlock;
      SuperBlockReadAhead<kInto>::template start<kQl, kBlock>(p);
      const __m512 dw = _mm512_maskz_cvtph_ps(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
      __m512i total[NT];
      for (int t = 0; t < NT; ++t) total[t] = _mm512_setzero_si512();
      // Group g's products, added into total[·] (the groups in any order: the totals are exact).
      auto group = [&](int g, const __m512i q[4]) {
        const __m512i sc = _mm512_maskz_cvtepi8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + kSc + 16 * g)));
        for (int t = 0; t < NT; ++t) {
          const int8_t* xq = x[t][i].qs + 16 * g;
          __m512i d0 = _mm512_set1_epi32(-32 * x[t][i].bsums[g]);
          if constexpr (kSplit) {
            __m512i d1 = dpbusd_bcast(_mm512_setzero_si512(), q[1], xq + 4);
            d0 = dpbusd_bcast(d0, q[0], xq);
            d1 = dpbusd_bcast(d1, q[3], xq + 12);
            d0 = dpbusd_bcast(d0, q[2], xq + 8);
            d0 = _mm512_add_epi32(d0, d1);
          } else {
            for (int j = 0; j < 4; ++j) d0 = dpbusd_bcast(d0, q[j], xq + 4 * j);
          }
          total[t] = _mm512_add_epi32(total[t], _mm512_mullo_epi32(d0, sc));
        }
      };
      // Per (h, jj) the four groups c = 0..3 share four qh words and, two by two, eight ql words:
      // each word is read once. c = 0 and 2 (ql words 16h + l) go first, then c = 1 and 3 (16h + 8 +
      // l), so that only four ql words are held at a time (at eight tokens the sixteen words, the
      // eight totals and the products would not fit the 32 registers).
      for (int h = 0; h < 2; ++h) {
        for (int jj = 0; jj < 2; ++jj) {
          __m512i ql[4], qh[4], high[4], q[4];
          for (int j = 0; j < 4; ++j) {
            const int l = 4 * jj + j;  // word of ql / qh within the half
            const uint8_t* line[2] = {p + kQl + 64 * (16 * h + l), p + kQh + 64 * (8 * h + l)};
            for (const uint8_t* at : line) SuperBlockReadAhead<kInto>::line(at);
            ql[j] = vec(line[0]);
            qh[j] = vec(line[1]);
            high[j] = _mm512_and_si512(qh[j], _mm512_set1_epi8(0x33));  // the high bits of c = 0 and 2
          }
          unpack_group<0>(ql, high, q);
          group(8 * h + jj, q);
          unpack_group<2>(ql, high, q);
          group(8 * h + 4 + jj, q);
          for (int j = 0; j < 4; ++j) {
            const uint8_t* line = p + kQl + 64 * (16 * h + 8 + 4 * jj + j);
            SuperBlockReadAhead<kInto>::line(line);
            ql[j] = vec(line);
            high[j] = _mm512_and_si512(qh[j], _mm512_set1_epi8(static_cast<char>(0xCC)));  // c = 1 and 3
          }
          unpack_group<1>(ql, high, q);
          group(8 * h + 2 + jj, q);
          unpack_group<3>(ql, high, q);
          group(8 * h + 6 + jj, q);
        }
      }
      for (int t = 0; t < NT; ++t)
        acc[t] = _mm512_fmadd_ps(to_float(total[t]), _mm512_mul_ps(dw, _mm512_set1_ps(x[t][i].d)), acc[t]);
    }
    store_rows<NT>(acc, n_w, Y, y_stride);
  }
};

template <class K, PrefetchInto kInto>
constexpr PanelKernels panel_of() {
  PanelKernels p;
  p.panel_bytes = K::panel_bytes;
  p.pack = K::pack;
  p.run = run_tokens<K, kInto>;
  p.read_ahead = kInto;
  return p;
}
// K's kernels in the form that reads ahead into `into`.
template <class K>
PanelKernels panel_in_form(PrefetchInto into) {
  return into == PrefetchInto::kL2 ? panel_of<K, PrefetchInto::kL2>() : panel_of<K, PrefetchInto::kL1>();
}

}  // namespace

void install_avx512_panel(KernelTable& t, PrefetchInto into) {
  PanelKernels q4_0 = panel_in_form<Q40>(into);
  q4_0.aux_bytes = aux_q8_0;
  q4_0.prepare = prepare_q8_0<8>;
  q4_0.prepack = true;  // as many bytes as the rows; decode faster from memory
  t.panel[idx(TensorType::Q4_0)] = q4_0;
  PanelKernels q8_0 = panel_in_form<Q80>(into);
  q8_0.aux_bytes = Q80::aux_stride;
  q8_0.prepare = Q80::prepare;
  q8_0.prepack = true;  // as many bytes as the rows (544 per block of 16 rows); decode faster from memory
  t.panel[idx(TensorType::Q8_0)] = q8_0;
  PanelKernels q5_0 = panel_in_form<Q50>(into);
  q5_0.aux_bytes = Q80::aux_stride;
  q5_0.prepare = Q80::prepare;
  t.panel[idx(TensorType::Q5_0)] = q5_0;
  PanelKernels q4_k = panel_in_form<K4N>(into);
  q4_k.prepack = true;  // about the size of the rows (2368 bytes per super-block of 16 rows against 2304)
  t.panel[idx(TensorType::Q4_K)] = q4_k;
  t.panel[idx(TensorType::Q5_K)] = panel_of<K4<true>, PrefetchInto::kL1>();  // reads no panel ahead
  PanelKernels q6_k = panel_in_form<Q6KN>(into);
  q6_k.prepack = true;  // about the size of the rows (3392 bytes per super-block of 16 rows against 3360)
  t.panel[idx(TensorType::Q6_K)] = q6_k;
}

}  // namespace a3s::power::kernels
