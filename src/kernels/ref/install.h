// Installers of the scalar reference kernels, one per source file; ref/table.cpp combines them.
#pragma once

#include "kernels/kernel_table.h"

namespace a3s::power::kernels {

void install_scalar_half(KernelTable& t);                 // ref/convert.cpp
void install_scalar_dequantize(KernelTable& t);           // dequantize.cpp
void install_scalar_quantize_activation(KernelTable& t);  // quantize_activation.cpp
void install_scalar_quantize_weight(KernelTable& t);      // quantize_weight.cpp
void install_scalar_vec_dot(KernelTable& t);              // ref/vec_dot.cpp
void install_scalar_exp(KernelTable& t);                  // ref/exp.cpp
void install_scalar_dot_f16_lanes16(KernelTable& t);      // dot_f16_lanes16.cpp
void install_scalar_iq4(KernelTable& t);                  // iq4.cpp: IQ4_NL and IQ4_XS, every kernel

}  // namespace a3s::power::kernels
