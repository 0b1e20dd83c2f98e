#include "kernels/scalar_install.h"

namespace a3s::power::kernels {

const KernelTable& scalar_table() {
  static const KernelTable table = [] {
    KernelTable t;
    install_scalar_half(t);
    install_scalar_dequantize(t);
    install_scalar_quantize_activation(t);
    install_scalar_quantize_weight(t);
    install_scalar_vec_dot(t);
    return t;
  }();
  return table;
}

}  // namespace a3s::power::kernels
