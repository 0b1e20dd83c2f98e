#include "synth/synthetic_vocab.h"

#include <cstdio>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power::synth {
namespace {

// SentencePiece token types (tokenizer.ggml.token_type).
constexpr int64_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;

gguf::Value string_value(std::string s) { return {gguf::ValueType::STRING, std::move(s)}; }

// The i-th piece over the alphabet a..z (bijective base 26: a, b, …, z, aa, ab, …).
std::string piece(uint64_t i) {
  std::string s;
  ++i;
  while (i > 0) {
    --i;
    s.insert(s.begin(), static_cast<char>('a' + i % 26));
    i /= 26;
  }
  return s;
}

}  // namespace

void add_synthetic_vocab(gguf::Writer& w, int n_vocab) {
  if (n_vocab < 259) throw Error(codes::kInvalidArgument, "a synthetic vocabulary needs at least 259 tokens");
  gguf::Array tokens{gguf::ValueType::STRING, {}}, scores{gguf::ValueType::FLOAT32, {}},
      types{gguf::ValueType::INT32, {}};
  auto add = [&](std::string text, double score, int64_t type) {
    tokens.items.push_back(string_value(std::move(text)));
    scores.items.push_back({gguf::ValueType::FLOAT32, score});
    types.items.push_back({gguf::ValueType::INT32, type});
  };
  add("<unk>", 0.0, kUnknown);
  add("<s>", 0.0, kControl);
  add("</s>", 0.0, kControl);
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    add(name, 0.0, kByte);
  }
  // Alternate word-initial ("▁" = U+2581) and inner pieces so both kinds exist at every length.
  for (uint64_t i = 0; static_cast<int>(tokens.items.size()) < n_vocab; ++i) {
    const std::string p = piece(i / 2);
    add(i % 2 == 0 ? "\xE2\x96\x81" + p : p, -static_cast<double>(i), kNormal);
  }
  w.set_string("tokenizer.ggml.model", "llama");
  w.set("tokenizer.ggml.tokens", {gguf::ValueType::ARRAY, std::move(tokens)});
  w.set("tokenizer.ggml.scores", {gguf::ValueType::ARRAY, std::move(scores)});
  w.set("tokenizer.ggml.token_type", {gguf::ValueType::ARRAY, std::move(types)});
  w.set_u32("tokenizer.ggml.unknown_token_id", 0);
  w.set_u32("tokenizer.ggml.bos_token_id", 1);
  w.set_u32("tokenizer.ggml.eos_token_id", 2);
}

int copy_vocab(gguf::Writer& w, const gguf::File& src) {
  const gguf::Value* tokens = src.find("tokenizer.ggml.tokens");
  const auto* arr = tokens ? std::get_if<gguf::Array>(&tokens->v) : nullptr;
  if (!arr || arr->items.empty())
    throw Error(codes::kInvalidArgument, "--vocab-from: " + src.path() + " has no tokenizer.ggml.tokens");
  for (const std::string& key : src.keys())
    if (key.rfind("tokenizer.", 0) == 0) w.set(key, *src.find(key));
  return static_cast<int>(arr->items.size());
}

}  // namespace a3s::power::synth
