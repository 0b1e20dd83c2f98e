// AVX2 + FMA + F16C dot_f16_lanes16: each 16-lane accumulator of the reference is two 8-lane
// registers (kernels/lanes16/rows.h).
#include "kernels/lanes16/rows.h"

namespace a3s::power::kernels {

void install_avx2_dot_f16_lanes16(KernelTable& t) {
  t.dot_f16_lanes16 = dot_f16_lanes16_one;
  t.dot_f16_lanes16_pages = dot_f16_lanes16_many;
}

}  // namespace a3s::power::kernels
