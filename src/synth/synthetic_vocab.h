// Tokenizer metadata for synthetic models: either a generated SentencePiece-style vocabulary or a
// copy of a real model's `tokenizer.*` keys (`--vocab-from`).
#pragma once

#include "model/gguf/gguf_file.h"
#include "model/gguf/gguf_writer.h"

namespace a3s::power::synth {

// Writes a SentencePiece ("llama") vocabulary of n_vocab tokens: <unk>, <s>, </s>, the 256 byte
// tokens <0x00>…<0xFF>, then distinct pieces ("▁a", "b", "▁ab", …) with decreasing scores, so any text
// tokenizes (byte fallback) and every id decodes. n_vocab must be at least 259.
void add_synthetic_vocab(gguf::Writer& w, int n_vocab);

// Copies every `tokenizer.*` key of `src` (tokens, merges, scores, special ids, chat template, …).
// Returns the vocabulary size (entries of tokenizer.ggml.tokens). Throws Error(codes::kInvalidArgument)
// when `src` has no tokenizer.ggml.tokens array.
int copy_vocab(gguf::Writer& w, const gguf::File& src);

}  // namespace a3s::power::synth
