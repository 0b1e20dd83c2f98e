// The avxvnni path: the 256-bit VNNI row and tile kernels (vnni256/tile.h) with the VEX-encoded
// vpdpbusd / vpdpwssd of AVX-VNNI, for CPUs that have it without AVX-512 (and which the other types'
// AVX2 kernels serve as on the avx2 path).
#if !defined(__AVXVNNI__)
#error "avxvnni/*.cpp files are compiled with -mavxvnni"
#endif

#include <immintrin.h>

#define A3S_VNNI_DPBUSD _mm256_dpbusd_avx_epi32
#define A3S_VNNI_DPWSSD _mm256_dpwssd_avx_epi32
#include "kernels/vnni256/tile.h"

namespace a3s::power::kernels {

void install_avxvnni(KernelTable& t) {
  install_vnni256_tile(t);
}

}  // namespace a3s::power::kernels
