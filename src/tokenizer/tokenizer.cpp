#include "tokenizer/tokenizer.h"

#include <variant>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "model/gguf/gguf_file.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/spm_tokenizer.h"
#include "tokenizer/vocab.h"

namespace a3s::power {
namespace {

constexpr const char* kModelKey = "tokenizer.ggml.model";
constexpr const char* kPreKey = "tokenizer.ggml.pre";
constexpr const char* kMergesKey = "tokenizer.ggml.merges";

// Model metadata may hold anything; keep what is echoed in an error short and printable.
std::string shown_name(const std::string& s) {
  PrintableStyle style;
  style.max_bytes = 64;
  style.unprintable = Unprintable::kBelowSpace;
  return printable(s, style);
}

std::unique_ptr<Tokenizer> load_sentencepiece(const gguf::File& file) {
  tok::VocabDefaults d;
  d.bos = 1;
  d.eos = 2;
  d.unk = 0;
  d.add_bos = true;
  d.add_eos = false;
  d.add_space_prefix = true;
  return std::make_unique<tok::SpmTokenizer>(tok::Vocab::load(file, d));
}

std::unique_ptr<Tokenizer> load_byte_level_bpe(const gguf::File& file) {
  const std::string pre = file.get_string(kPreKey).value_or("");
  const tok::PreTokenizerSpec& spec = tok::pre_tokenizer_spec(pre);

  const gguf::Value* merges = file.find(kMergesKey);
  if (!merges) throw Error(codes::kInvalidModel, std::string("missing ") + kMergesKey + " for a gpt2 tokenizer");
  const auto* arr = std::get_if<gguf::Array>(&merges->v);
  if (!arr || arr->elem_type != gguf::ValueType::STRING) {
    throw Error(codes::kInvalidModel, std::string(kMergesKey) + " is not an array of strings");
  }
  std::vector<std::string_view> merge_list;
  merge_list.reserve(arr->items.size());
  for (const gguf::Value& item : arr->items) merge_list.emplace_back(std::get<std::string>(item.v));

  tok::VocabDefaults d;
  d.bos = spec.has_bos ? 11 : -1;  // llama.cpp's historical defaults for BPE vocabularies
  d.eos = 11;
  d.unk = -1;
  d.add_bos = spec.add_bos;
  d.add_eos = false;
  d.add_space_prefix = false;
  return std::make_unique<tok::BpeTokenizer>(tok::Vocab::load(file, d), spec, merge_list);
}

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::from_gguf(const gguf::File& file) {
  const std::optional<std::string> model = file.get_string(kModelKey);
  if (!model) throw Error(codes::kInvalidModel, std::string("missing ") + kModelKey);
  if (*model == "llama") return load_sentencepiece(file);
  if (*model == "gpt2") return load_byte_level_bpe(file);
  throw Error(codes::kInvalidModel, "unsupported tokenizer model '" + shown_name(*model) + "'");
}

std::string Tokenizer::decode(std::span<const Token> tokens, bool special) const {
  std::string out;
  for (Token t : tokens) out += token_to_piece(t, special);
  return out;
}

}  // namespace a3s::power
