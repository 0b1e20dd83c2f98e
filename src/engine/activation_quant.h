// Activation quantization for the Q8_0 / Q8_1 dot products exactly as llama.cpp's x86 CPU backend
// performs it (its AVX/AVX2 `quantize_row_q8_0` / `quantize_row_q8_1`), which differs from ggml's
// reference quantizer in two details: the inverse scale is 127/amax (not 1/(amax/127)) and values
// are rounded half to even (not half away from zero). Both change an int8 now and then, and a
// single changed int8 visibly moves the logits of small random-weight models; matching the backend
// that produced the reference outputs keeps greedy decoding identical.
//
// Block layouts (ggml-common.h): Q8_0 = {fp16 d; int8 qs[32]} (34 bytes),
// Q8_1 = {fp16 d; fp16 s = d·Σqs; int8 qs[32]} (36 bytes).
#pragma once

#include <cstdint>

#include "base/thread_pool.h"
#include "model/gguf/tensor_type.h"

namespace a3s::power::engine {

// True for the activation types handled here (Q8_0, Q8_1).
bool backend_matched_quantizer(TensorType act);

// Quantizes X [n_rows, n_cols] (n_cols a multiple of 32) into dst rows of type `act`.
void quantize_activations(TensorType act, const float* X, void* dst, int64_t n_rows, int64_t n_cols,
                          ThreadPool& pool);

}  // namespace a3s::power::engine
