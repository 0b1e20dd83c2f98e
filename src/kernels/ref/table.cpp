#include "kernels/ref/install.h"

namespace a3s::power::kernels {

const KernelTable& scalar_table() {
  static const KernelTable table = [] {
    KernelTable t;
    install_scalar_half(t);
    install_scalar_dequantize(t);
    install_scalar_quantize_activation(t);
    install_scalar_quantize_weight(t);
    install_scalar_vec_dot(t);
    install_scalar_exp(t);
    install_scalar_dot_f16_lanes16(t);
    install_scalar_iq4(t);
    return t;
  }();
  return table;
}

void overlay(KernelTable& base, const KernelTable& over) {
  for (size_t i = 0; i < kTypeSlots; ++i) {
    if (over.vec_dot[i] != nullptr) base.vec_dot[i] = over.vec_dot[i];
    if (over.vec_dot_batch[i] != nullptr) base.vec_dot_batch[i] = over.vec_dot_batch[i];
    if (over.tile[i] != nullptr) base.tile[i] = over.tile[i];
    if (over.quantize[i] != nullptr) base.quantize[i] = over.quantize[i];
    if (over.quantize_backend[i] != nullptr) base.quantize_backend[i] = over.quantize_backend[i];
    if (over.dequantize[i] != nullptr) base.dequantize[i] = over.dequantize[i];
    if (over.panel[i].run != nullptr) base.panel[i] = over.panel[i];
  }
  if (over.fp16_to_fp32_row != nullptr) base.fp16_to_fp32_row = over.fp16_to_fp32_row;
  if (over.fp32_to_fp16_row != nullptr) base.fp32_to_fp16_row = over.fp32_to_fp16_row;
  if (over.bf16_to_fp32_row != nullptr) base.bf16_to_fp32_row = over.bf16_to_fp32_row;
  if (over.fp32_to_bf16_row != nullptr) base.fp32_to_bf16_row = over.fp32_to_bf16_row;
  if (over.exp_row != nullptr) base.exp_row = over.exp_row;
  if (over.dot_f16_lanes16 != nullptr) base.dot_f16_lanes16 = over.dot_f16_lanes16;
  if (over.dot_f16_lanes16_pages != nullptr) base.dot_f16_lanes16_pages = over.dot_f16_lanes16_pages;
}

}  // namespace a3s::power::kernels
