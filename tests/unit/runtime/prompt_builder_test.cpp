// PromptBuilder on a real vocabulary (stories260K, SentencePiece with add_bos): one BOS whether or not
// the template writes it, no trailing EOS, special tokens parsed in chat prompts and not in text prompts.
#include "runtime/prompt_builder.h"

#include <gtest/gtest.h>

#include <string>

#include "model/gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::runtime {
namespace {

std::unique_ptr<Tokenizer> stories_tokenizer() {
  auto file = gguf::File::open(std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf");
  return Tokenizer::from_gguf(*file);
}

int count(const std::vector<Token>& tokens, Token t) {
  int n = 0;
  for (Token x : tokens) n += x == t;
  return n;
}

const chat::Messages kConversation = {chat::text_message(chat::Role::kUser, "Once upon a time")};

TEST(PromptBuilder, APlainConversationGetsOneBosFromTheTokenizer) {
  const auto tok = stories_tokenizer();
  ASSERT_TRUE(tok->add_bos());
  const auto plain = chat::ChatTemplate::create(std::nullopt);
  const std::vector<Token> p = PromptBuilder(*tok, *plain).chat(kConversation);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front(), tok->bos());
  EXPECT_EQ(count(p, tok->bos()), 1);
  EXPECT_NE(p.back(), tok->eos());
}

TEST(PromptBuilder, ATemplateThatWritesBosGetsNoSecondOne) {
  const auto tok = stories_tokenizer();
  const auto llama2 = chat::ChatTemplate::create("not a known template", "llama2");  // writes "<s>"
  const std::vector<Token> p = PromptBuilder(*tok, *llama2).chat(kConversation);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front(), tok->bos());
  EXPECT_EQ(count(p, tok->bos()), 1) << "the template's <s> is the only BOS";
}

TEST(PromptBuilder, TextPromptsGetBosAndLeaveSpecialTokenTextAsText) {
  const auto tok = stories_tokenizer();
  const std::vector<Token> p = text_prompt(*tok, "<s>Once");
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front(), tok->bos());
  EXPECT_EQ(count(p, tok->bos()), 1) << "the text \"<s>\" is not parsed as BOS";
  EXPECT_GT(p.size(), 2u);
}

TEST(PromptBuilder, AMalformedConversationIsTheTemplatesError) {
  const auto tok = stories_tokenizer();
  const auto plain = chat::ChatTemplate::create(std::nullopt);
  try {
    PromptBuilder(*tok, *plain).chat(chat::Messages{});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidRequest);
  }
}

}  // namespace
}  // namespace a3s::power::runtime
