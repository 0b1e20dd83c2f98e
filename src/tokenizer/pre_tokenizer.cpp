#include "tokenizer/pre_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <map>
#include <utility>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "tokenizer/utf8.h"

namespace a3s::power::tok {
namespace {

// ---- Expression sets (PCRE2 syntax). Sources: llama.cpp src/llama-vocab.cpp, which adapts the
// expressions of each model's Hugging Face tokenizer.json. ----

// GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)
constexpr const char* kGpt2 =
    R"re('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))re";

// Case-insensitive English contractions, as the models' tokenizer.json writes them. llama.cpp spells
// them '[sS]|'[tT]|... (its std::regex fallback has no (?i:...)); caseless matching also takes the
// other case of s that Unicode case folding knows, U+017F (long s): "'\u017F" is a contraction here
// and in the Hugging Face and tiktoken expressions, but not in llama.cpp.
#define A3S_CONTRACTIONS R"re((?i:'s|'t|'re|'ve|'m|'ll|'d))re"

// Llama 3 (tiktoken cl100k style): digits in groups of up to three.
constexpr const char* kLlama3 = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

// Qwen2: as Llama 3 but one digit per piece.
constexpr const char* kQwen2 = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

constexpr const char* kQwen35 = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

constexpr const char* kJais2 = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+)re"
    R"re(|\s{512}(?!\S)|\s{256}(?!\S)|\s{128}(?!\S)|\s{64}(?!\S)|\s{32}(?!\S)|\s{16}(?!\S))re"
    R"re(|\s{8}(?!\S)|\s{4}(?!\S)|\s{1,2}(?!\S)|\s{1})re";

constexpr const char* kSeedCoder = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)re";

constexpr const char* kBailing =
    R"re('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N})re"
    R"re(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)re";

constexpr const char* kMiniCpm5 = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}+| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

constexpr const char* kExaoneMoe = A3S_CONTRACTIONS
    R"re(|[^\r\n\p{L}\p{N}]?(?:\p{L}\p{M}*(?: \p{L}\p{M}*)*)+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]?)re"
    R"re(|\s*[\r\n]|\s+(?!\S)|\s+)re";

// Tekken / GPT-4o: "upper* lower+ | upper+ lower*" words, where lookaheads restrict to letters.
constexpr const char* kTekken =
    R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+)re"
    R"re(|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*)re"
    R"re(|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

constexpr const char* kGpt4o =
    R"re([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+)re" A3S_CONTRACTIONS
    R"re(?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*)re" A3S_CONTRACTIONS
    R"re(?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

// DeepSeek LLM: letters of the cased scripts (an explicit list, not \p{L}), ASCII/full-width
// punctuation, CJK/Hangul runs, digits.
constexpr const char* kDeepSeekLlmLetters =
    R"re(\s?[A-Za-z\x{B5}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293})re"
    R"re(\x{295}-\x{2AF}\x{370}-\x{373}\x{376}\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A})re"
    R"re(\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556})re"
    R"re(\x{10A0}-\x{10C5}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF})re"
    R"re(\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D})re"
    R"re(\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D})re"
    R"re(\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3})re"
    R"re(\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107})re"
    R"re(\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D})re"
    R"re(\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2183}\x{2184})re"
    R"re(\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}\x{2CF3}\x{A640}-\x{A66D})re"
    R"re(\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{AB70}-\x{ABBF})re"
    R"re(\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F})re"
    R"re(\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2})re"
    R"re(\x{118A0}-\x{118DF}\x{1E900}-\x{1E943}]+)re";
constexpr const char* kDeepSeekPunct =
    R"re(\s?[!-/:-~\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF5E}\x{2018}-\x{201F}\x{3000}-\x{3002}]+)re";
constexpr const char* kCjkHangul = R"re([\x{4E00}-\x{9FA5}\x{0800}-\x{4E00}\x{AC00}-\x{D7FF}]+)re";

constexpr const char* kDeepSeekV3Main =
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+)re"
    R"re(| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

constexpr const char* kPoro = R"re( ?[^(\s|.,!?\x{2026}\x{3002}\x{FF0C}\x{3001}\x{964}\x{6D4}\x{60C})]+)re";

#undef A3S_CONTRACTIONS

struct NamedSet {
  PreTokenizerSpec spec;
  std::vector<const char*> aliases;
};

const std::vector<NamedSet>& sets() {
  static const std::vector<NamedSet> s = {
      {{"default", {R"re([\p{P}\$\+<=>\^~\|]+)re", kGpt2, R"re(\p{N}+)re", R"re([0-9][0-9][0-9])re"}},
       {"default", "llama-spm"}},
      {{"llama3", {kLlama3}, /*ignore_merges=*/true, /*add_bos=*/true},
       {"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
        "jina-v5-nano"}},
      {{"dbrx", {kLlama3}}, {"dbrx", "smaug-bpe"}},
      {{"chatglm4", {kLlama3}, false, false, /*has_bos=*/false}, {"glm4", "chatglm-bpe"}},
      {{"deepseek-llm",
        {R"re([\r\n])re", kDeepSeekLlmLetters, kDeepSeekPunct, R"re(\s+$)re", kCjkHangul, R"re(\p{N}+)re"}},
       {"deepseek-llm"}},
      {{"deepseek-coder", {R"re([\r\n])re", R"re(\s?\p{L}+)re", R"re(\s?\p{P}+)re", kCjkHangul, R"re(\p{N})re"}},
       {"deepseek-coder"}},
      {{"deepseek-v3",
        {R"re(\p{N}{1,3})re", R"re([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)re", kDeepSeekV3Main}},
       {"deepseek-v3", "hunyuan-dense", "joyai-llm", "hy_v4"}},
      {{"falcon", {R"re([\p{P}\$\+<=>\^~\|`]+)re", kGpt2, R"re([0-9][0-9][0-9])re"}}, {"falcon"}},
      {{"starcoder", {R"re(\p{N})re", kGpt2}},
       {"starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2"}},
      {{"gpt-2", {kGpt2}},
       {"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
        "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4", "mpt", "olmo", "jais",
        "trillion", "granite-docling"}},
      {{"qwen2", {kQwen2}},
       {"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open",
        "grok-2"}},
      {{"qwen35", {kQwen35}}, {"qwen35"}},
      {{"jais-2", {kJais2}}, {"jais-2"}},
      {{"seed-coder", {kSeedCoder}}, {"seed-coder"}},
      {{"bailingmoe", {kBailing}}, {"bailingmoe", "bailingmoe2", "llada-moe"}},
      {{"minicpm5", {R"re(\p{N}{1,3})re", kMiniCpm5}, /*ignore_merges=*/true}, {"minicpm5"}},
      {{"exaone-moe", {kExaoneMoe}}, {"exaone-moe"}},
      {{"tekken", {kTekken}, /*ignore_merges=*/true, /*add_bos=*/true}, {"tekken"}},
      {{"gpt-4o", {kGpt4o}}, {"gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"}},
      {{"poro", {kPoro}}, {"poro-chat", "bloom", "gpt3-finnish"}},
      {{"viking", {kPoro, R"re(\p{N})re"}}, {"viking"}},
  };
  return s;
}

// What the expressions see for a code point (see header): non-ASCII white space as U+000B, and
// values PCRE2 cannot hold in UTF mode as U+FFFD. U+180E is white space to PCRE2 but not in
// current Unicode; present it as another format character.
uint32_t matching_codepoint(uint32_t cp) {
  if (cp < 0x80) return cp;
  if (is_unicode_whitespace(cp)) return 0x0B;
  if (cp == 0x180E) return 0x200B;
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return kReplacementChar;
  return cp;
}

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
using CodePtr = std::unique_ptr<pcre2_code, CodeDeleter>;
using MatchDataPtr = std::unique_ptr<pcre2_match_data, MatchDataDeleter>;

}  // namespace

const PreTokenizerSpec& pre_tokenizer_spec(std::string_view pre) {
  if (pre.empty()) pre = "default";
  for (const NamedSet& s : sets()) {
    for (const char* alias : s.aliases) {
      if (pre == alias) return s.spec;
    }
  }
  // The name is model metadata, not user text; cap its length to keep the message one short line.
  PrintableStyle style;
  style.max_bytes = 64;
  style.unprintable = Unprintable::kBelowSpace;
  const std::string shown = printable(pre, style);
  throw Error(codes::kInvalidModel, "unknown pre-tokenizer '" + shown + "'");
}

std::vector<std::string> known_pre_tokenizers() {
  std::vector<std::string> out;
  for (const NamedSet& s : sets()) {
    for (const char* alias : s.aliases) out.emplace_back(alias);
  }
  return out;
}

struct PreTokenizer::Impl {
  std::vector<CodePtr> codes;
};

PreTokenizer::PreTokenizer(const PreTokenizerSpec& spec) : impl_(std::make_unique<Impl>()) {
  for (const std::string& re : spec.regexes) {
    int err = 0;
    PCRE2_SIZE err_offset = 0;
    CodePtr code(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(re.data()), re.size(),
                               PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &err, &err_offset, nullptr));
    if (!code) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(err, msg, sizeof msg);
      throw Error(codes::kInvalidModel, "pre-tokenizer '" + spec.name + "': expression does not compile at offset " +
                                            std::to_string(err_offset) + ": " + reinterpret_cast<const char*>(msg));
    }
    pcre2_jit_compile(code.get(), PCRE2_JIT_COMPLETE);  // optional speed-up; interpreter otherwise
    impl_->codes.push_back(std::move(code));
  }
}

PreTokenizer::~PreTokenizer() = default;

std::vector<std::string> PreTokenizer::split(std::string_view text) const {
  const std::vector<uint32_t> cps = decode_utf8_lenient(text);
  const uint32_t n = static_cast<uint32_t>(cps.size());
  if (n == 0) return {};

  // The subject the expressions run on, and the byte ↔ code point index maps.
  std::string subject;
  subject.reserve(text.size() + 8);
  std::vector<uint32_t> cp_byte(n + 1);
  for (uint32_t i = 0; i < n; ++i) {
    cp_byte[i] = static_cast<uint32_t>(subject.size());
    append_utf8(subject, matching_codepoint(cps[i]));
  }
  cp_byte[n] = static_cast<uint32_t>(subject.size());
  std::vector<uint32_t> byte_cp(subject.size() + 1, 0);
  for (uint32_t i = 0; i <= n; ++i) byte_cp[cp_byte[i]] = i;

  using Piece = std::pair<uint32_t, uint32_t>;  // [begin, end) in code points
  std::vector<Piece> pieces{{0, n}}, next;
  const auto* base = reinterpret_cast<PCRE2_SPTR>(subject.data());

  for (const CodePtr& code : impl_->codes) {
    MatchDataPtr md(pcre2_match_data_create_from_pattern(code.get(), nullptr));
    if (!md) throw Error(codes::kInternal, "out of memory in pre-tokenizer");
    auto match = [&](PCRE2_SPTR subj, size_t len, size_t start, uint32_t opts) {
      int rc = pcre2_match(code.get(), subj, len, start, opts | PCRE2_NO_UTF_CHECK, md.get(), nullptr);
      if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
        rc = pcre2_match(code.get(), subj, len, start, opts | PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md.get(), nullptr);
      }
      if (rc < 0 && rc != PCRE2_ERROR_NOMATCH) {
        throw Error(codes::kInternal, "pre-tokenizer expression failed (pcre2 error " + std::to_string(rc) + ")");
      }
      return rc >= 0;
    };
    next.clear();
    next.reserve(pieces.size() * 2);
    for (const auto& [cb, ce] : pieces) {
      const size_t b0 = cp_byte[cb];
      const size_t len = cp_byte[ce] - b0;
      const PCRE2_SPTR subj = base + b0;
      auto at = [&](size_t off) { return byte_cp[b0 + off]; };
      size_t last = 0;  // end of the previous piece
      size_t pos = 0;   // where the next search starts
      bool after_empty = false;
      while (pos <= len) {
        bool found = false;
        if (after_empty) {
          // After an empty match, first look for a non-empty match at the same place.
          found = match(subj, len, pos, PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED);
          if (!found) {
            if (pos >= len) break;
            pos += utf8_sequence_length(subj[pos]);
            after_empty = false;
            continue;
          }
        } else {
          if (pos >= len) break;
          found = match(subj, len, pos, 0);
          if (!found) break;
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
        const size_t ms = ov[0], me = ov[1];
        if (ms > last) next.emplace_back(at(last), at(ms));
        if (me > ms) next.emplace_back(at(ms), at(me));
        last = me;
        pos = me;
        after_empty = (me == ms);
      }
      if (last < len) next.emplace_back(at(last), ce);
    }
    pieces.swap(next);
  }

  std::vector<std::string> words;
  words.reserve(pieces.size());
  for (const auto& [b, e] : pieces) {
    std::string w;
    for (uint32_t i = b; i < e; ++i) append_utf8(w, cps[i]);
    words.push_back(std::move(w));
  }
  return words;
}

}  // namespace a3s::power::tok
