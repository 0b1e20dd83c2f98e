// Tokenizer behaviour beyond the reference vectors: loading errors, BOS/EOS defaults, special
// tokens, byte fallback, pieces, end-of-generation tokens, malformed and long input.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "a3s/power/error.h"
#include "tokenizer_test_util.h"

namespace a3s::power {
namespace {

using power::testing::MetadataGguf;

const std::string kSpace = "\xE2\x96\x81";  // "▁"

// A small SentencePiece vocabulary: <unk> <s> </s>, 256 byte tokens, a few pieces, one control and
// one user-defined token.
MetadataGguf spm_vocab() {
  power::testing::SpmVocabulary v;
  const std::vector<std::pair<std::string, float>> pieces = {
      {kSpace, -1.0f}, {"a", -2.0f}, {"b", -2.0f}, {kSpace + "a", -0.5f}, {"ab", -0.1f}};
  for (const auto& [t, sc] : pieces) v.add(t, sc, 1);
  v.add("<|im_end|>", 0, 3);
  v.add("<tool>", 0, 4);
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama").strs("tokenizer.ggml.tokens", v.tokens).f32s("tokenizer.ggml.scores", v.scores)
      .i32s("tokenizer.ggml.token_type", v.types);
  return b;
}

constexpr Token kSpmSpace = 259, kSpmA = 260, kSpmB = 261, kSpmSpaceA = 262, kSpmAB = 263, kSpmImEnd = 264,
                kSpmTool = 265;

// A small byte-level BPE vocabulary ("Ġ" is the byte-level spelling of a space).
MetadataGguf bpe_vocab(const std::string& pre, bool with_pre = true) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "gpt2");
  if (with_pre) b.str("tokenizer.ggml.pre", pre);
  b.strs("tokenizer.ggml.tokens", {"a", "b", "c", "ab", "bc", "abc", "\xC4\xA0", "\xC4\xA0" "a", "<|endoftext|>"})
      .i32s("tokenizer.ggml.token_type", {1, 1, 1, 1, 1, 1, 1, 1, 3})
      .strs("tokenizer.ggml.merges", {"b c", "a b", "\xC4\xA0 a"})
      .u32("tokenizer.ggml.bos_token_id", 8)
      .u32("tokenizer.ggml.eos_token_id", 8);
  return b;
}

std::unique_ptr<Tokenizer> from(const MetadataGguf& b) { return Tokenizer::from_gguf(*b.build()); }

void expect_load_error(const MetadataGguf& b, const std::string& needle) {
  try {
    from(b);
    FAIL() << "expected a load error containing: " << needle;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidModel);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

// ---- Loading errors ----

TEST(TokenizerLoad, UnknownModelIsInvalidModelNamingIt) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "bert").strs("tokenizer.ggml.tokens", {"a"});
  expect_load_error(b, "'bert'");
}

TEST(TokenizerLoad, UnknownPreTokenizerIsInvalidModel) {
  expect_load_error(bpe_vocab("no-such-pre"), "unknown pre-tokenizer 'no-such-pre'");
}

TEST(TokenizerLoad, MissingModelKey) {
  MetadataGguf b;
  b.strs("tokenizer.ggml.tokens", {"a"});
  expect_load_error(b, "tokenizer.ggml.model");
}

TEST(TokenizerLoad, MissingTokens) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama");
  expect_load_error(b, "tokenizer.ggml.tokens");
}

TEST(TokenizerLoad, ScoresShorterThanTokens) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama").strs("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a"})
      .f32s("tokenizer.ggml.scores", {0, 0});
  expect_load_error(b, "tokenizer.ggml.scores");
}

TEST(TokenizerLoad, TokenTypesShorterThanTokens) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama").strs("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a"})
      .i32s("tokenizer.ggml.token_type", {2, 3});
  expect_load_error(b, "tokenizer.ggml.token_type");
}

TEST(TokenizerLoad, TokensOfWrongType) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama").i32s("tokenizer.ggml.tokens", {1, 2, 3});
  expect_load_error(b, "tokenizer.ggml.tokens");
}

TEST(TokenizerLoad, DuplicateTokenText) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama").strs("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "a", "a"});
  expect_load_error(b, "duplicate token");
}

TEST(TokenizerLoad, GptTwoWithoutMerges) {
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "gpt-2").strs("tokenizer.ggml.tokens", {"a"});
  expect_load_error(b, "tokenizer.ggml.merges");
}

TEST(TokenizerLoad, AddBosWithoutBosToken) {
  // chatglm-bpe has no default BOS token, so asking for one is inconsistent metadata.
  MetadataGguf c;
  c.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "chatglm-bpe")
      .strs("tokenizer.ggml.tokens", {"a", "b"}).strs("tokenizer.ggml.merges", {"a b"})
      .boolean("tokenizer.ggml.add_bos_token", true);
  expect_load_error(c, "add_bos_token");
}

TEST(TokenizerLoad, OutOfRangeSpecialIdsKeepDefaults) {
  auto b = spm_vocab();
  b.u32("tokenizer.ggml.bos_token_id", 0xFFFFFFFFu).u32("tokenizer.ggml.padding_token_id", 0xFFFFFFFFu);
  auto tok = from(b);
  EXPECT_EQ(tok->bos(), 1);
  EXPECT_EQ(tok->eos(), 2);
}

// ---- BOS / EOS ----

TEST(TokenizerSpecial, SentencePieceAddsBosByDefault) {
  auto tok = from(spm_vocab());
  EXPECT_TRUE(tok->add_bos());
  EXPECT_FALSE(tok->add_eos());
  const auto ids = tok->encode("a", true, false);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(tok->encode("", true, false), std::vector<Token>{1});
  EXPECT_TRUE(tok->encode("", false, false).empty());
}

TEST(TokenizerSpecial, AddEosKeyAppendsEos) {
  auto b = spm_vocab();
  b.boolean("tokenizer.ggml.add_eos_token", true).boolean("tokenizer.ggml.add_bos_token", false);
  auto tok = from(b);
  const auto ids = tok->encode("a", true, false);
  EXPECT_EQ(ids, (std::vector<Token>{kSpmSpaceA, 2}));
}

TEST(TokenizerSpecial, BpeBosDefaultDependsOnPreTokenizer) {
  EXPECT_FALSE(from(bpe_vocab("gpt-2"))->add_bos());
  EXPECT_TRUE(from(bpe_vocab("llama-bpe"))->add_bos());
  EXPECT_EQ(from(bpe_vocab("llama-bpe"))->encode("a", true, false), (std::vector<Token>{8, 0}));
  // Absent pre-tokenizer name means "default".
  EXPECT_FALSE(from(bpe_vocab("", /*with_pre=*/false))->add_bos());
}

// ---- SentencePiece merging, byte fallback, pieces ----

TEST(SentencePiece, HighestScoringPairMergesFirst) {
  auto tok = from(spm_vocab());
  // "▁ab": "ab" (-0.1) outranks "▁a" (-0.5); "▁ab" is no token, so two pieces remain.
  EXPECT_EQ(tok->encode("ab", false, false), (std::vector<Token>{kSpmSpace, kSpmAB}));
  EXPECT_EQ(tok->encode("a", false, false), (std::vector<Token>{kSpmSpaceA}));
  EXPECT_EQ(tok->encode("b a", false, false), (std::vector<Token>{kSpmSpace, kSpmB, kSpmSpaceA}));
}

TEST(SentencePiece, NoSpacePrefixWhenDisabled) {
  auto b = spm_vocab();
  b.boolean("tokenizer.ggml.add_space_prefix", false);
  EXPECT_EQ(from(b)->encode("ab", false, false), (std::vector<Token>{kSpmAB}));
}

TEST(SentencePiece, UnknownCharactersFallBackToBytes) {
  auto tok = from(spm_vocab());
  const std::string llama = "\xF0\x9F\xA6\x99";  // U+1F999
  const auto ids = tok->encode(llama, false, false);
  ASSERT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids[0], kSpmSpace);
  EXPECT_EQ(tok->token_text(ids[1]), "<0xF0>");
  EXPECT_EQ(tok->token_text(ids[2]), "<0x9F>");
  EXPECT_EQ(tok->token_text(ids[3]), "<0xA6>");
  EXPECT_EQ(tok->token_text(ids[4]), "<0x99>");
  EXPECT_EQ(tok->decode(ids), " " + llama);
}

TEST(SentencePiece, RealVocabularyByteFallback) {
  auto tok = test::load_tokenizer(test::testdata() / "models" / "stories260K.gguf");
  const std::string text = "Once \xE4\xB8\x96";  // "Once 世": the CJK character is not in the vocabulary
  const auto ids = tok->encode(text, false, false);
  int bytes = 0;
  for (Token t : ids) bytes += tok->token_text(t).rfind("<0x", 0) == 0 ? 1 : 0;
  EXPECT_EQ(bytes, 3);
  EXPECT_EQ(tok->decode(ids), " " + text);
}

TEST(SentencePiece, PiecesUnescapeSpacesAndHideControlTokens) {
  auto tok = from(spm_vocab());
  EXPECT_EQ(tok->token_to_piece(kSpmSpaceA), " a");
  EXPECT_EQ(tok->token_to_piece(1), "");
  EXPECT_EQ(tok->token_to_piece(1, /*special=*/true), "<s>");
  EXPECT_EQ(tok->token_to_piece(0), "");  // <unk> is hidden like control tokens
  EXPECT_EQ(tok->token_to_piece(3 + 0x41), "A");
  EXPECT_EQ(tok->token_to_piece(kSpmTool), "<tool>");  // user-defined tokens are text
  EXPECT_TRUE(tok->is_control(1));
  EXPECT_FALSE(tok->is_control(kSpmA));
}

// ---- Special tokens ----

TEST(TokenizerSpecial, ControlTokensParsedOnlyWhenAsked) {
  auto tok = from(spm_vocab());
  EXPECT_EQ(tok->encode("a<|im_end|>", false, true), (std::vector<Token>{kSpmSpaceA, kSpmImEnd}));
  const auto plain = tok->encode("a<|im_end|>", false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), kSpmImEnd), 0);
  EXPECT_EQ(tok->decode(plain), " a<|im_end|>");
}

TEST(TokenizerSpecial, TextAfterSpecialTokenGetsSpacePrefix) {
  auto tok = from(spm_vocab());
  EXPECT_EQ(tok->encode("<s>a", false, true), (std::vector<Token>{1, kSpmSpaceA}));
}

TEST(TokenizerSpecial, UserDefinedTokensAlwaysMatched) {
  auto tok = from(spm_vocab());
  EXPECT_EQ(tok->encode("<tool>", false, false), (std::vector<Token>{kSpmTool}));
  EXPECT_EQ(tok->encode("<tool>", false, true), (std::vector<Token>{kSpmTool}));
}

TEST(TokenizerSpecial, LongerSpecialTextIsCarvedOutFirst) {
  // "aby" (3 bytes) is matched before "xa" (2 bytes) even though "xa" starts earlier.
  MetadataGguf b;
  b.str("tokenizer.ggml.model", "llama")
      .strs("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "x", "xa", "aby"})
      .i32s("tokenizer.ggml.token_type", {2, 3, 3, 1, 4, 4})
      .boolean("tokenizer.ggml.add_space_prefix", false);
  auto tok = from(b);
  EXPECT_EQ(tok->encode("xaby", false, false), (std::vector<Token>{3, 5}));
  EXPECT_EQ(tok->encode("xax", false, false), (std::vector<Token>{4, 3}));
}

TEST(TokenizerSpecial, GptTwoEndOfTextParsing) {
  auto tok = test::load_tokenizer(test::testdata() / "tokenizer" / "ggml-vocab-gpt-2.gguf");
  const std::string text = "Hello<|endoftext|> world";
  const auto parsed = tok->encode(text, false, true);
  EXPECT_EQ(std::count(parsed.begin(), parsed.end(), 50256), 1);
  EXPECT_EQ(parsed, (std::vector<Token>{15496, 50256, 995}));
  const auto plain = tok->encode(text, false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 50256), 0);
  EXPECT_EQ(tok->decode(plain), text);
  EXPECT_EQ(tok->decode(parsed), "Hello world");
  EXPECT_EQ(tok->decode(parsed, /*special=*/true), text);
}

TEST(TokenizerSpecial, LongestSpecialTextWins) {
  auto tok = test::load_tokenizer(test::testdata() / "tokenizer" / "ggml-vocab-starcoder.gguf");
  // "<fim_prefix>" must not be cut short by any shorter control token sharing its start.
  const auto ids = tok->encode("<fim_prefix>x<fim_suffix>", false, true);
  ASSERT_GE(ids.size(), 3u);
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(ids.back(), 3);
}

// ---- End of generation ----

TEST(TokenizerEog, EosAndTurnEndTokens) {
  auto gpt2 = test::load_tokenizer(test::testdata() / "tokenizer" / "ggml-vocab-gpt-2.gguf");
  EXPECT_TRUE(gpt2->is_eog(50256));
  EXPECT_FALSE(gpt2->is_eog(15496));
  auto spm = test::load_tokenizer(test::testdata() / "tokenizer" / "ggml-vocab-llama-spm.gguf");
  EXPECT_TRUE(spm->is_eog(2));
  EXPECT_FALSE(spm->is_eog(1));
  EXPECT_EQ(spm->eog_tokens(), std::vector<Token>{2});

  auto tok = from(spm_vocab());
  EXPECT_TRUE(tok->is_eog(2));
  EXPECT_TRUE(tok->is_eog(kSpmImEnd));  // recognised by its text
  EXPECT_FALSE(tok->is_eog(kSpmTool));
  EXPECT_FALSE(tok->is_eog(-1));
  EXPECT_FALSE(tok->is_eog(1 << 20));
  EXPECT_EQ(tok->eog_tokens(), (std::vector<Token>{2, kSpmImEnd}));
}

TEST(TokenizerEog, EotKeyIsEndOfGeneration) {
  auto b = spm_vocab();
  b.u32("tokenizer.ggml.eot_token_id", kSpmTool);
  auto tok = from(b);
  EXPECT_TRUE(tok->is_eog(kSpmTool));
}

// ---- Byte-level BPE ----

TEST(BytePairGpt2, LowestRankMergesFirst) {
  auto tok = from(bpe_vocab("gpt-2"));
  EXPECT_EQ(tok->kind(), Tokenizer::Kind::BytePairGpt2);
  // "b c" has rank 0, so "abc" → a + bc ("a bc" is no merge).
  EXPECT_EQ(tok->encode("abc", false, false), (std::vector<Token>{0, 4}));
  EXPECT_EQ(tok->encode(" a", false, false), (std::vector<Token>{7}));
  EXPECT_EQ(tok->token_to_piece(7), " a");
}

TEST(BytePairGpt2, IgnoreMergesTakesWholeWordTokens) {
  // The Llama 3 family emits a word that is itself a token without running merges.
  auto tok = from(bpe_vocab("llama-bpe"));
  EXPECT_EQ(tok->encode("abc", false, false), (std::vector<Token>{5}));
}

TEST(BytePairGpt2, PiecesAreRawBytes) {
  auto tok = test::load_tokenizer(test::testdata() / "tokenizer" / "ggml-vocab-gpt-2.gguf");
  EXPECT_EQ(tok->token_to_piece(995), " world");
  EXPECT_EQ(tok->token_to_piece(198), "\n");
  EXPECT_EQ(tok->token_to_piece(50256), "");
  EXPECT_EQ(tok->token_to_piece(50256, true), "<|endoftext|>");
}

// ---- Bad input ----

TEST(TokenizerInput, OutOfRangeIdsAreInvalidArgument) {
  auto tok = from(spm_vocab());
  for (Token t : {Token{-1}, Token{tok->n_vocab()}, Token{1 << 30}}) {
    try {
      tok->token_to_piece(t);
      FAIL() << "token " << t;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    }
    EXPECT_THROW(tok->token_text(t), Error);
  }
  const std::vector<Token> bad = {kSpmA, -5};
  EXPECT_THROW(tok->decode(bad), Error);
}

class AllVocabularies : public ::testing::TestWithParam<std::string> {};

TEST_P(AllVocabularies, MalformedUtf8NeverFails) {
  auto tok = test::load_tokenizer(test::testdata() / "tokenizer" / ("ggml-vocab-" + GetParam() + ".gguf"));
  std::mt19937 rng(1234);
  for (int round = 0; round < 20; ++round) {
    std::string text(64 + round * 7, '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xFF);
    std::vector<Token> ids;
    ASSERT_NO_THROW(ids = tok->encode(text, true, true));
    for (Token t : ids) {
      ASSERT_GE(t, 0);
      ASSERT_LT(t, tok->n_vocab());
    }
    EXPECT_NO_THROW(tok->decode(ids, true));
  }
}

TEST_P(AllVocabularies, LongInputEncodesAndRoundTrips) {
  auto tok = test::load_tokenizer(test::testdata() / "tokenizer" / ("ggml-vocab-" + GetParam() + ".gguf"));
  const std::string unit =
      "The quick brown fox jumps over the lazy dog 12345 times; \xC3\xA9t\xC3\xA9 \xE4\xB8\x96\xE7\x95\x8C "
      "\xF0\x9F\x98\x80   \t\n";
  std::string text;
  while (text.size() < 100 * 1024) text += unit;
  text += std::string(4096, 'a');   // one very long word
  text += std::string(4096, ' ');   // one very long run of spaces
  const auto ids = tok->encode(text, false, false);
  EXPECT_GT(ids.size(), text.size() / 16);
  std::string back = tok->decode(ids);
  if (tok->kind() == Tokenizer::Kind::SentencePiece) back.erase(0, 1);
  EXPECT_TRUE(back == text) << "round trip differs";
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, AllVocabularies,
                         ::testing::Values("llama-spm", "gpt-2", "starcoder", "deepseek-llm", "falcon"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace a3s::power
