// Synthetic GGUF models: a model of any supported shape and file type with seeded random weights,
// for benchmarks and memory tests (speed and memory depend on tensor shapes and types, not values).
//
// Weights are uniform in ±sqrt(3/n_in) (unit-variance outputs), norm weights are 1, biases small;
// each row's values come from its own seeded generator, so a file is the same for a given seed, shape
// and type whatever the thread count. Quantized tensors go through the engine's own weight
// quantizers (kernels::quantize_rows). Tensors are written in the order token_embd, blk.0.* …
// blk.N.*, output_norm, output, so each block's weights are contiguous in the file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "synth/file_type.h"
#include "synth/model_shape.h"

namespace a3s::power::synth {

struct SynthOptions {
  ModelShape shape;
  FileType type = FileType::Q4_K_M;
  uint64_t seed = 42;
  std::optional<std::string> vocab_from;  // copy tokenizer.* metadata from this GGUF
  std::string name = "synthetic";         // general.name
  int n_threads = 0;                      // 0 → physical cores
};

struct SynthResult {
  uint64_t file_bytes = 0;
  uint64_t n_params = 0;
  int n_vocab = 0;
};

// Writes the model to `out` (via "<out>.tmp", renamed when complete). `progress(done, total)` is
// called after each tensor with bytes of tensor data written so far. Throws Error
// ("invalid_argument") for a bad shape or vocabulary file, Error(codes::kIo) when writing fails.
SynthResult synthesize(const SynthOptions& opts, const std::string& out,
                       const std::function<void(uint64_t done, uint64_t total)>& progress = {});

}  // namespace a3s::power::synth
