// StreamingDetokenizer never emits partial UTF-8: bytes of an unfinished character wait for the
// rest, impossible bytes become U+FFFD at once, flush() turns a dangling tail into U+FFFD.
#include <gtest/gtest.h>

#include "tokenizer_test_util.h"

namespace a3s::power {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

class StreamingDetokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override { tok = test::load_tokenizer(test::testdata() / "models" / "stories260K.gguf"); }
  // stories260K stores byte tokens <0x00>..<0xFF> at ids 3..258.
  Token byte(uint8_t b) const { return 3 + b; }
  std::unique_ptr<Tokenizer> tok;
};

TEST_F(StreamingDetokenizerTest, HoldsIncompleteCharacter) {
  ASSERT_EQ(tok->token_text(byte(0xF0)), "<0xF0>");
  StreamingDetokenizer d(*tok);
  EXPECT_EQ(d.push(byte(0xF0)), "");
  EXPECT_EQ(d.push(byte(0x9F)), "");
  EXPECT_EQ(d.push(byte(0xA6)), "");
  EXPECT_EQ(d.push(byte(0x99)), "\xF0\x9F\xA6\x99");
  EXPECT_EQ(d.flush(), "");
}

TEST_F(StreamingDetokenizerTest, PassesCompleteTextAtOnce) {
  StreamingDetokenizer d(*tok);
  std::string out;
  for (Token t : tok->encode("Once upon a time", false, false)) out += d.push(t);
  EXPECT_EQ(out, " Once upon a time");
  EXPECT_EQ(d.push(byte('!')), "!");
}

TEST_F(StreamingDetokenizerTest, TextBeforeIncompleteTailIsEmitted) {
  StreamingDetokenizer d(*tok);
  EXPECT_EQ(d.push(byte('A')), "A");
  EXPECT_EQ(d.push(byte(0xC3)), "");
  EXPECT_EQ(d.push(byte(0xA9)), "\xC3\xA9");
}

TEST_F(StreamingDetokenizerTest, ImpossibleBytesBecomeReplacementAtOnce) {
  StreamingDetokenizer d(*tok);
  EXPECT_EQ(d.push(byte(0xFF)), kReplacement);
  EXPECT_EQ(d.push(byte(0x80)), kReplacement);  // stray continuation byte
  EXPECT_EQ(d.push(byte(0xE2)), "");
  EXPECT_EQ(d.push(byte('x')), kReplacement + "x");  // the started sequence is broken
  EXPECT_EQ(d.push(byte(0xED)), "");
  EXPECT_EQ(d.push(byte(0xA0)), kReplacement + kReplacement);  // surrogates are not UTF-8
}

TEST_F(StreamingDetokenizerTest, FlushReplacesDanglingTail) {
  StreamingDetokenizer d(*tok);
  EXPECT_EQ(d.push(byte(0xE4)), "");
  EXPECT_EQ(d.push(byte(0xB8)), "");
  EXPECT_EQ(d.flush(), kReplacement);
  EXPECT_EQ(d.flush(), "");
  EXPECT_EQ(d.push(byte('a')), "a");
}

TEST_F(StreamingDetokenizerTest, ResetDropsPending) {
  StreamingDetokenizer d(*tok);
  EXPECT_EQ(d.push(byte(0xE4)), "");
  d.reset();
  EXPECT_EQ(d.push(byte('a')), "a");
  EXPECT_EQ(d.flush(), "");
}

TEST_F(StreamingDetokenizerTest, ControlTokensProduceNothing) {
  StreamingDetokenizer d(*tok);
  EXPECT_EQ(d.push(tok->bos()), "");
  EXPECT_EQ(d.push(tok->eos()), "");
}

}  // namespace
}  // namespace a3s::power
