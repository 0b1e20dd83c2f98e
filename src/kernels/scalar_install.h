// Installers of the scalar reference kernels, one per source file; scalar_table.cpp combines them.
#pragma once

#include "kernels/kernel_table.h"

namespace a3s::power::kernels {

void install_scalar_half(KernelTable& t);                 // half_rows.cpp
void install_scalar_dequantize(KernelTable& t);           // dequantize.cpp
void install_scalar_quantize_activation(KernelTable& t);  // quantize_activation.cpp
void install_scalar_quantize_weight(KernelTable& t);      // quantize_weight.cpp
void install_scalar_vec_dot(KernelTable& t);              // vec_dot_scalar.cpp
void install_scalar_exp(KernelTable& t);                  // exp_row.cpp
void install_scalar_dot_f16_lanes16(KernelTable& t);      // dot_f16_lanes16.cpp

}  // namespace a3s::power::kernels
