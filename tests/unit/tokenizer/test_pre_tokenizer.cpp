// Pre-tokenizer expression sets: every accepted name compiles, pieces cover the text exactly, and
// the characteristic splits of the main families.
#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "tokenizer/pre_tokenizer.h"

namespace a3s::power::tok {
namespace {

using Words = std::vector<std::string>;

Words split(const std::string& pre, const std::string& text) {
  PreTokenizer p(pre_tokenizer_spec(pre));
  return p.split(text);
}

TEST(PreTokenizer, EveryKnownNameCompilesAndCoversText) {
  const std::string text = "Hello, world! It's 12345 \xC3\xA9t\xC3\xA9\n\n  \xE4\xB8\x96\xE7\x95\x8C\t x";
  const auto names = known_pre_tokenizers();
  EXPECT_GE(names.size(), 40u);
  for (const std::string& name : names) {
    Words words;
    ASSERT_NO_THROW(words = split(name, text)) << name;
    std::string joined;
    for (const auto& w : words) {
      EXPECT_FALSE(w.empty()) << name;
      joined += w;
    }
    EXPECT_EQ(joined, text) << name;
  }
}

TEST(PreTokenizer, RequiredNamesAreKnown) {
  for (const char* name : {"default", "llama-spm", "gpt-2", "llama3", "llama-bpe", "qwen2", "deepseek-llm",
                           "deepseek-coder", "starcoder", "falcon", "refact", "command-r", "smollm", "codeshell",
                           "exaone", "olmo", "jais", "tekken", "dbrx", "smaug-bpe", "stablelm2", "mpt"}) {
    EXPECT_NO_THROW(pre_tokenizer_spec(name)) << name;
  }
}

TEST(PreTokenizer, UnknownNameIsInvalidModel) {
  try {
    pre_tokenizer_spec("no-such-pre");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidModel);
    EXPECT_EQ(std::string(e.what()), "unknown pre-tokenizer 'no-such-pre'");
  }
}

TEST(PreTokenizer, Gpt2Splits) {
  EXPECT_EQ(split("gpt-2", "Hello world"), (Words{"Hello", " world"}));
  EXPECT_EQ(split("gpt-2", "I've 42 apples!!"), (Words{"I", "'ve", " 42", " apples", "!!"}));
  // Whitespace before a word leaves its last space to the word; trailing whitespace stays whole.
  EXPECT_EQ(split("gpt-2", "a   b  "), (Words{"a", "  ", " b", "  "}));
  EXPECT_EQ(split("gpt-2", "\tx"), (Words{"\t", "x"}));
  EXPECT_TRUE(split("gpt-2", "").empty());
}

TEST(PreTokenizer, Llama3GroupsDigitsByThree) {
  EXPECT_EQ(split("llama3", "1234567"), (Words{"123", "456", "7"}));
  EXPECT_EQ(split("llama3", "HELLO'S x"), (Words{"HELLO", "'S", " x"}));
  EXPECT_EQ(split("llama3", "a\n\n b"), (Words{"a", "\n\n", " b"}));
  EXPECT_TRUE(pre_tokenizer_spec("llama3").ignore_merges);
  EXPECT_TRUE(pre_tokenizer_spec("llama-bpe").add_bos);
}

TEST(PreTokenizer, Qwen2SplitsSingleDigits) {
  EXPECT_EQ(split("qwen2", "x123"), (Words{"x", "1", "2", "3"}));
}

TEST(PreTokenizer, StarcoderAndFalconNumbers) {
  EXPECT_EQ(split("starcoder", "a 12"), (Words{"a", " ", "1", "2"}));
  EXPECT_EQ(split("falcon", "1234"), (Words{"123", "4"}));
}

TEST(PreTokenizer, DeepSeekSeparatesScripts) {
  EXPECT_EQ(split("deepseek-llm", "ab\xE4\xB8\x96\xE7\x95\x8C"), (Words{"ab", "\xE4\xB8\x96\xE7\x95\x8C"}));
  EXPECT_EQ(split("deepseek-coder", "x\ny"), (Words{"x", "\n", "y"}));
}

TEST(PreTokenizer, MalformedUtf8BecomesReplacementCharacters) {
  // Each invalid byte decodes to U+FFFD, as the reference tokenizers do.
  const auto words = split("gpt-2", std::string("a\xFF\xFE"));
  std::string joined;
  for (const auto& w : words) joined += w;
  EXPECT_EQ(joined, "a\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace a3s::power::tok
