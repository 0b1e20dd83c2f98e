// The AVX-512 path's 256-bit VNNI row and tile kernels (vnni256/tile.h, EVEX encoding) and its panel
// kernels (panel.cpp).
#if !defined(__AVX512F__) || !defined(__AVX512BW__) || !defined(__AVX512VL__) || !defined(__AVX512VNNI__)
#error "avx512/*.cpp files are compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni"
#endif

#include <immintrin.h>

#define A3S_VNNI_DPBUSD _mm256_dpbusd_epi32
#define A3S_VNNI_DPWSSD _mm256_dpwssd_epi32
#include "kernels/vnni256/tile.h"

namespace a3s::power::kernels {

void install_avx512_panel(KernelTable& t);  // panel.cpp

void install_avx512(KernelTable& t) {
  install_vnni256_tile(t);
  install_avx512_panel(t);
}

}  // namespace a3s::power::kernels
