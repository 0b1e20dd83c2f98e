// Sentence embeddings from a decoder model: the final hidden states of a token sequence (after the
// output norm, Context::eval_hidden), pooled as the GGUF's <arch>.pooling_type says and
// L2-normalised, as llama.cpp's `llama-embedding --embd-normalize 2` computes them.
//
// Pooling: mean over every token (also when the GGUF names none or has no pooling_type, the usual
// case for generative models), cls (the first token's state) or last (the last token's state). A
// reranker's rank pooling has no embedding: Error(codes::kInvalidArgument).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power {

// "mean", "cls", "last" or "rank": the pooling embed() applies to `model`'s states.
std::string embedding_pooling(const Model& model);

// The embedding of `tokens` (n_embd floats, unit L2 norm; a zero vector stays zero). Evaluates the
// tokens on `ctx` from position 0 (it forgets what it held first and holds the tokens afterwards:
// the caller wipes it). Errors are eval()'s, and Error(codes::kInvalidArgument) for an empty input or
// a model with rank pooling.
std::vector<float> embed(Context& ctx, std::span<const Token> tokens);

}  // namespace a3s::power
