// Quantized block layouts, byte-for-byte as ggml stores them in GGUF files.
//
// Source: ggml-org/llama.cpp `ggml/src/ggml-common.h` (block_q4_0 ... block_q8_K). Scales `d`, `m`,
// `dmin`, `s` are IEEE binary16 bit patterns except in Q8_K, whose `d` is a binary32. Values are
// little-endian. Nibble order: in Q4_0/Q4_1/Q5_0/Q5_1 byte j holds element j in its low nibble and
// element j + 16 in its high nibble; the fifth bit of element j is bit j of `qh`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace a3s::power::kernels {

inline constexpr int kQK = 32;    // elements per block of the simple quants
inline constexpr int kQKK = 256;  // elements per super-block of the K-quants and Q8_K

struct BlockQ4_0 {  // x = d · (q - 8)
  uint16_t d;
  uint8_t qs[kQK / 2];
};
struct BlockQ4_1 {  // x = d · q + m
  uint16_t d;
  uint16_t m;
  uint8_t qs[kQK / 2];
};
struct BlockQ5_0 {  // x = d · (q - 16), q = nibble | fifth bit << 4
  uint16_t d;
  uint8_t qh[4];
  uint8_t qs[kQK / 2];
};
struct BlockQ5_1 {  // x = d · q + m
  uint16_t d;
  uint16_t m;
  uint8_t qh[4];
  uint8_t qs[kQK / 2];
};
struct BlockQ8_0 {  // x = d · q
  uint16_t d;
  int8_t qs[kQK];
};
struct BlockQ8_1 {  // x = d · q; s = d · Σq (binary16)
  uint16_t d;
  uint16_t s;
  int8_t qs[kQK];
};

// Q2_K: 16 sub-blocks of 16; scales[j] = 4-bit scale | 4-bit min << 4; x = d·sc·q - dmin·m.
// qs: four 2-bit planes per 32 bytes (element 32·p + l of each 128-half in bits 2p of byte l).
struct BlockQ2_K {
  uint8_t scales[kQKK / 16];
  uint8_t qs[kQKK / 4];
  uint16_t d;
  uint16_t dmin;
};
// Q3_K: 16 sub-blocks of 16; 6-bit signed scales (offset 32) packed in 12 bytes; x = d·(sc-32)·q,
// q = 2 low bits from qs minus 4 unless the hmask bit is set.
struct BlockQ3_K {
  uint8_t hmask[kQKK / 8];
  uint8_t qs[kQKK / 4];
  uint8_t scales[12];
  uint16_t d;
};
// Q4_K: 8 sub-blocks of 32; 6-bit scales and mins packed in 12 bytes; x = d·sc·q - dmin·m.
struct BlockQ4_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qs[kQKK / 2];
};
// Q5_K: as Q4_K plus one high bit per element in qh.
struct BlockQ5_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qh[kQKK / 8];
  uint8_t qs[kQKK / 2];
};
// Q6_K: 16 sub-blocks of 16 with int8 scales; x = d·sc·(q - 32), q = 4 low bits (ql) | 2 high (qh).
struct BlockQ6_K {
  uint8_t ql[kQKK / 2];
  uint8_t qh[kQKK / 4];
  int8_t scales[kQKK / 16];
  uint16_t d;
};
// Q8_K (activations only): x = d · q; bsums[j] = Σ q over elements 16j .. 16j+15.
// IQ4_NL: x = d · kIq4Values[index]; nibble order as Q4_0.
struct BlockIQ4NL {
  uint16_t d;
  uint8_t qs[kQK / 2];
};
// IQ4_XS: sub-block s (32 elements) has scale d · (ls − 32), ls = 6 bits: the low 4 in scales_l
// (nibble s % 2 of byte s / 2), the high 2 in bits 2s, 2s+1 of scales_h; its indices are
// qs[16s .. 16s+15] in Q4_0's nibble order.
struct BlockIQ4XS {
  uint16_t d;
  uint16_t scales_h;
  uint8_t scales_l[kQKK / 64];
  uint8_t qs[kQKK / 2];
};
// The 16 values of the IQ4 formats (ggml-common.h, kvalues_iq4nl).
inline constexpr int8_t kIq4Values[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

struct BlockQ8_K {
  float d;
  int8_t qs[kQKK];
  int16_t bsums[kQKK / 16];
};

static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ8_1) == 36);
static_assert(sizeof(BlockQ2_K) == 84);
static_assert(sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ8_K) == 292);
static_assert(sizeof(BlockIQ4NL) == 18);
static_assert(sizeof(BlockIQ4XS) == 136);

// Unpacks the 6-bit scale and min of sub-block j (0..7) of a Q4_K / Q5_K block.
inline void k4_scale_min(int j, const uint8_t* s, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = s[j] & 63;
    *m = s[j + 4] & 63;
  } else {
    *sc = static_cast<uint8_t>((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((s[j + 4] >> 4) | ((s[j] >> 6) << 4));
  }
}

// Unpacks the sixteen 6-bit scales of a Q3_K block into signed values (already minus 32).
inline void q3k_scales(const uint8_t* s, int8_t* out) {
  for (int j = 0; j < 16; ++j) {
    const int low = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
    const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    out[j] = static_cast<int8_t>((low | (high << 4)) - 32);
  }
}

}  // namespace a3s::power::kernels
