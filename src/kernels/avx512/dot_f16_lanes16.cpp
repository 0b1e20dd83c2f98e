// AVX-512 dot_f16_lanes16: each 16-lane accumulator of the reference is one 512-bit register, the
// layout of the llama.cpp AVX-512 build the order comes from (kernels/lanes16/rows.h).
#define A3S_LANES16_ZMM 1
#include "kernels/lanes16/rows.h"

namespace a3s::power::kernels {

void install_avx512_dot_f16_lanes16(KernelTable& t) {
  t.dot_f16_lanes16 = dot_f16_lanes16_one;
  t.dot_f16_lanes16_pages = dot_f16_lanes16_many;
}

}  // namespace a3s::power::kernels
