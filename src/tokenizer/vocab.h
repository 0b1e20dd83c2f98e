// The vocabulary shared by every tokenizer model: token texts, scores and attributes, the special
// token ids and flags, and the end-of-generation set, loaded from GGUF `tokenizer.ggml.*` metadata.
//
// Source of the keys: `docs/gguf.md` in ggml-org/ggml ("Tokenizer" section):
//   tokenizer.ggml.tokens       array[string]  token texts, index = token id
//   tokenizer.ggml.scores       array[float32] optional, per token (SentencePiece log probabilities)
//   tokenizer.ggml.token_type   array[int32]   optional: 1 normal, 2 unknown, 3 control,
//                                              4 user defined, 5 unused, 6 byte
//   tokenizer.ggml.{bos,eos,eot,eom,unknown,padding,seperator}_token_id   uint32, optional
//   tokenizer.ggml.fim_{pre,suf,mid,pad,rep,sep}_token_id                  uint32, optional
//   tokenizer.ggml.add_bos_token / add_eos_token / add_space_prefix        bool, optional
// Ids outside the vocabulary (e.g. 0xFFFFFFFF written for "none") are ignored and the model
// default stays in place, as llama.cpp does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "a3s/power/engine.h"

namespace a3s::power::gguf {
class File;
}

namespace a3s::power::tok {

// Token attributes (bit set; a token may gain kControl when its text marks end of generation).
enum TokenAttr : uint16_t {
  kAttrUndefined = 0,
  kAttrNormal = 1u << 0,
  kAttrUnknown = 1u << 1,
  kAttrControl = 1u << 2,
  kAttrUserDefined = 1u << 3,
  kAttrUnused = 1u << 4,
  kAttrByte = 1u << 5,
};

// Hash for heterogeneous (string_view) lookups in string-keyed maps. Deliberately not noexcept:
// libstdc++ then stores each node's hash, so a lookup never rehashes the keys of a bucket chain.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIndex = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

// Model-dependent defaults applied before the GGUF keys override them.
struct VocabDefaults {
  Token bos = -1, eos = -1, unk = -1;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = false;
};

struct Vocab {
  std::vector<std::string> text;  // token text as stored in the GGUF
  std::vector<float> score;       // 0 when the GGUF has no scores
  std::vector<uint16_t> attr;     // TokenAttr bits
  StringIndex index;              // text → id

  Token bos = -1, eos = -1, eot = -1, eom = -1, unk = -1, pad = -1, sep = -1;
  Token fim_pre = -1, fim_suf = -1, fim_mid = -1, fim_pad = -1, fim_rep = -1, fim_sep = -1;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = false;

  std::vector<Token> eog;         // end-of-generation ids, ascending
  std::vector<uint8_t> eog_mask;  // eog_mask[id] != 0 ⇔ id ∈ eog

  int n_tokens() const { return static_cast<int>(text.size()); }
  bool valid(Token t) const { return t >= 0 && t < n_tokens(); }
  Token find(std::string_view s) const {
    auto it = index.find(s);
    return it == index.end() ? Token{-1} : it->second;
  }
  bool has_attr(Token t, uint16_t mask) const { return valid(t) && (attr[t] & mask) != 0; }

  // Loads tokens, scores, types, special ids and flags; detects end-of-generation tokens.
  // Throws Error(codes::kInvalidModel) naming the key on missing or inconsistent metadata.
  static Vocab load(const gguf::File& file, const VocabDefaults& defaults);
};

// "<0xNN>" → NN; -1 when `text` is not a byte-token spelling.
int parse_byte_token(std::string_view text);

}  // namespace a3s::power::tok
