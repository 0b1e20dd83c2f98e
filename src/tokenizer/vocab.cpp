#include "tokenizer/vocab.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <set>
#include <utility>
#include <variant>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::tok {
namespace {

constexpr const char* kTokensKey = "tokenizer.ggml.tokens";
constexpr const char* kScoresKey = "tokenizer.ggml.scores";
constexpr const char* kTypesKey = "tokenizer.ggml.token_type";

[[noreturn]] void fail(const std::string& msg) { throw Error(codes::kInvalidModel, msg); }

uint16_t attr_from_type(int64_t type) {
  switch (type) {
    case 1: return kAttrNormal;
    case 2: return kAttrUnknown;
    case 3: return kAttrControl;
    case 4: return kAttrUserDefined;
    case 5: return kAttrUnused;
    case 6: return kAttrByte;
    default: return kAttrUndefined;
  }
}

void load_tokens(const gguf::File& file, Vocab& v) {
  const gguf::Value* tokens = file.find(kTokensKey);
  if (!tokens) fail(std::string("missing ") + kTokensKey);
  const auto* arr = std::get_if<gguf::Array>(&tokens->v);
  if (!arr || arr->elem_type != gguf::ValueType::STRING) fail(std::string(kTokensKey) + " is not an array of strings");
  if (arr->items.empty()) fail(std::string(kTokensKey) + " is empty");
  if (arr->items.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    fail(std::string(kTokensKey) + " has too many entries");
  }
  const size_t n = arr->items.size();

  std::optional<std::vector<double>> scores = file.get_f64_array(kScoresKey);
  if (scores && scores->size() < n) {
    fail(std::string(kScoresKey) + " has " + std::to_string(scores->size()) + " entries for " +
         std::to_string(n) + " tokens");
  }
  std::optional<std::vector<int64_t>> types = file.get_i64_array(kTypesKey);
  if (types && types->size() < n) {
    fail(std::string(kTypesKey) + " has " + std::to_string(types->size()) + " entries for " +
         std::to_string(n) + " tokens");
  }

  v.text.resize(n);
  v.score.assign(n, 0.0f);
  v.attr.assign(n, kAttrNormal);
  v.index.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string word = std::get<std::string>(arr->items[i].v);
    if (word.empty()) word = "[EMPTY_" + std::to_string(i) + "]";
    auto [it, inserted] = v.index.emplace(word, static_cast<int32_t>(i));
    if (!inserted) {
      fail("duplicate token in " + std::string(kTokensKey) + ": ids " + std::to_string(it->second) +
           " and " + std::to_string(i) + " have the same text");
    }
    v.text[i] = std::move(word);
    if (scores) v.score[i] = static_cast<float>((*scores)[i]);
    if (types) v.attr[i] = attr_from_type((*types)[i]);
  }
}

// Reads an optional token id key; ids outside the vocabulary keep the current value.
void read_id(const gguf::File& file, const char* key, int n_tokens, Token& id) {
  if (id >= n_tokens) id = -1;  // a model default that this vocabulary cannot hold
  if (!file.has(key)) return;
  std::optional<int64_t> v = file.get_i64(key);
  if (v && *v >= 0 && *v < n_tokens) id = static_cast<Token>(*v);
}

// Texts that mark a token as ending a turn (llama.cpp `special_eog_ids` detection).
constexpr std::array<std::string_view, 22> kEogTexts = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>", "[e~[",
};

struct AutoDetect {
  Token Vocab::*field;
  std::vector<std::string_view> texts;
};

// When the GGUF does not name them, EOT/EOM/FIM tokens are recognised by their text; such tokens
// are control tokens from then on.
void detect_by_text(Vocab& v) {
  const std::vector<AutoDetect> table = {
      {&Vocab::eot, {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
                     "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]",
                     "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>",
                     "<end_of_utterance>"}},
      {&Vocab::eom, {"<|eom_id|>"}},
      {&Vocab::fim_pre, {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>",
                         "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "begin\xEF\xBD\x9C>", "<PRE>",
                         "\xE2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"}},
      {&Vocab::fim_suf, {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>",
                         "<\xEF\xBD\x9C" "fim\xE2\x96\x81hole\xEF\xBD\x9C>", "<SUF>",
                         "\xE2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"}},
      {&Vocab::fim_mid, {"<|fim_middle|>", "<fim-middle>", "<fim_middle>",
                         "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "end\xEF\xBD\x9C>", "<MID>",
                         "\xE2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"}},
      {&Vocab::fim_pad, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}},
      {&Vocab::fim_rep, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}},
      {&Vocab::fim_sep, {"<|file_sep|>"}},
  };
  for (const AutoDetect& d : table) {
    Token& id = v.*(d.field);
    if (id >= 0) continue;
    for (Token t = 0; t < v.n_tokens() && id < 0; ++t) {
      if (std::find(d.texts.begin(), d.texts.end(), v.text[t]) != d.texts.end()) {
        id = t;
        v.attr[t] |= kAttrControl;
      }
    }
  }
}

void build_eog(Vocab& v) {
  std::set<Token> eog;
  for (Token id : {v.fim_pad, v.fim_rep, v.fim_sep}) {
    if (id >= 0) eog.insert(id);
  }
  for (Token t = 0; t < v.n_tokens(); ++t) {
    if (std::find(kEogTexts.begin(), kEogTexts.end(), v.text[t]) != kEogTexts.end()) {
      eog.insert(t);
      v.attr[t] |= kAttrControl;
    }
  }
  // gpt-oss channel markers are always rendered.
  for (std::string_view s : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"}) {
    Token t = v.find(s);
    if (t >= 0) v.attr[t] = kAttrUserDefined;
  }
  for (Token id : {v.eos, v.eot, v.eom}) {
    if (id >= 0) eog.insert(id);
  }
  // Harmony-style vocabularies end a message with <|end|> but a turn with <|return|>/<|call|>.
  bool has_return = false, has_call = false, has_flush = false;
  Token end_id = -1;
  for (Token t : eog) {
    const std::string& s = v.text[t];
    if (s == "<|return|>") has_return = true;
    else if (s == "<|call|>" || s == "<|calls|>") has_call = true;
    else if (s == "<|flush|>") has_flush = true;
    else if (s == "<|end|>") end_id = t;
  }
  if (end_id >= 0 && ((has_return && has_call) || (has_call && has_flush))) {
    eog.erase(end_id);
    v.attr[end_id] = kAttrUserDefined;
  }
  // Vocabularies with <|tool_response> use </s> as ordinary text.
  Token tool_response = -1, s_id = -1;
  for (Token t : eog) {
    if (v.text[t] == "<|tool_response>") tool_response = t;
    else if (v.text[t] == "</s>") s_id = t;
  }
  if (tool_response >= 0 && s_id >= 0) {
    eog.erase(s_id);
    v.attr[s_id] = kAttrNormal;
  }
  v.eog.assign(eog.begin(), eog.end());
  v.eog_mask.assign(v.text.size(), 0);
  for (Token t : v.eog) v.eog_mask[t] = 1;
}

}  // namespace

int parse_byte_token(std::string_view text) {
  if (text.size() != 6 || text.substr(0, 3) != "<0x" || text[5] != '>') return -1;
  const int hi = hex_digit_value(text[3]), lo = hex_digit_value(text[4]);
  return (hi < 0 || lo < 0) ? -1 : hi * 16 + lo;
}

Vocab Vocab::load(const gguf::File& file, const VocabDefaults& defaults) {
  Vocab v;
  v.bos = defaults.bos;
  v.eos = defaults.eos;
  v.unk = defaults.unk;
  v.add_bos = defaults.add_bos;
  v.add_eos = defaults.add_eos;
  v.add_space_prefix = file.get_bool("tokenizer.ggml.add_space_prefix").value_or(defaults.add_space_prefix);

  load_tokens(file, v);
  const int n = v.n_tokens();

  const std::pair<const char*, Token Vocab::*> ids[] = {
      {"tokenizer.ggml.bos_token_id", &Vocab::bos},
      {"tokenizer.ggml.eos_token_id", &Vocab::eos},
      {"tokenizer.ggml.eot_token_id", &Vocab::eot},
      {"tokenizer.ggml.eom_token_id", &Vocab::eom},
      {"tokenizer.ggml.unknown_token_id", &Vocab::unk},
      {"tokenizer.ggml.seperator_token_id", &Vocab::sep},
      {"tokenizer.ggml.padding_token_id", &Vocab::pad},
      {"tokenizer.ggml.fim_pre_token_id", &Vocab::fim_pre},
      {"tokenizer.ggml.fim_suf_token_id", &Vocab::fim_suf},
      {"tokenizer.ggml.fim_mid_token_id", &Vocab::fim_mid},
      {"tokenizer.ggml.fim_pad_token_id", &Vocab::fim_pad},
      {"tokenizer.ggml.fim_rep_token_id", &Vocab::fim_rep},
      {"tokenizer.ggml.fim_sep_token_id", &Vocab::fim_sep},
      // Older spellings of the fill-in-the-middle ids.
      {"tokenizer.ggml.prefix_token_id", &Vocab::fim_pre},
      {"tokenizer.ggml.suffix_token_id", &Vocab::fim_suf},
      {"tokenizer.ggml.middle_token_id", &Vocab::fim_mid},
  };
  for (const auto& [key, field] : ids) read_id(file, key, n, v.*field);

  if (auto b = file.get_bool("tokenizer.ggml.add_bos_token")) v.add_bos = *b;
  if (auto b = file.get_bool("tokenizer.ggml.add_eos_token")) v.add_eos = *b;
  if (v.add_bos && v.bos < 0) fail("tokenizer.ggml.add_bos_token is true but the model has no BOS token");
  if (v.add_eos && v.eos < 0) fail("tokenizer.ggml.add_eos_token is true but the model has no EOS token");

  detect_by_text(v);
  // Control tokens named "unused" are placeholders.
  for (Token t = 0; t < n; ++t) {
    if ((v.attr[t] & kAttrControl) && v.text[t].find("unused") != std::string::npos) v.attr[t] |= kAttrUnused;
  }
  build_eog(v);
  return v;
}

}  // namespace a3s::power::tok
