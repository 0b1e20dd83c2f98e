// ReasoningSplitter: the thinking between <think> and </think> apart from the answer, whole or
// delta by delta (every split of the reply gives the same parts), tags and surrounding whitespace
// dropped, a reply without the tag all answer, an unclosed block all thinking, a prompt that opened
// the block, and tag-like text that is not a tag.
#include "chat/reasoning.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace a3s::power::chat {
namespace {

using Parts = ReasoningSplitter::Parts;

// The reply pushed in pieces of `step` bytes (whole UTF-8 characters: the test texts are ASCII
// except where noted), every push's parts concatenated.
Parts pushed(const std::string& text, ReasoningStart start, size_t step) {
  ReasoningSplitter s(start);
  Parts all;
  for (size_t i = 0; i < text.size(); i += step) {
    Parts p = s.push(std::string_view(text).substr(i, step));
    all.reasoning += p.reasoning;
    all.content += p.content;
  }
  Parts rest = s.finish();
  all.reasoning += rest.reasoning;
  all.content += rest.content;
  return all;
}

void expect_split(const std::string& text, ReasoningStart start, const std::string& reasoning,
                  const std::string& content) {
  const Parts whole = ReasoningSplitter::split(text, start);
  EXPECT_EQ(whole.reasoning, reasoning) << text;
  EXPECT_EQ(whole.content, content) << text;
  for (size_t step = 1; step <= 9; ++step) {
    const Parts p = pushed(text, start, step);
    EXPECT_EQ(p.reasoning, reasoning) << text << " step " << step;
    EXPECT_EQ(p.content, content) << text << " step " << step;
  }
}

TEST(ReasoningSplitter, ThinkingThenAnswer) {
  expect_split("<think>\nLet me add 2 and 2.\nThat is 4.\n</think>\n\nThe answer is 4.", ReasoningStart::kOutside,
               "Let me add 2 and 2.\nThat is 4.", "The answer is 4.");
  expect_split("  <think>x</think>y", ReasoningStart::kOutside, "x", "y");
  expect_split("<think></think>answer", ReasoningStart::kOutside, "", "answer");
  expect_split("<think>\n\n</think>\n\nanswer  \n", ReasoningStart::kOutside, "", "answer  \n");
}

TEST(ReasoningSplitter, NoTagIsAllAnswerAndAnUnclosedBlockIsAllThinking) {
  expect_split("Just an answer, <think> inside is text.", ReasoningStart::kOutside, "",
               "Just an answer, <think> inside is text.");
  expect_split("<thinking>not the tag</thinking>", ReasoningStart::kOutside, "", "<thinking>not the tag</thinking>");
  expect_split("<thi", ReasoningStart::kOutside, "", "<thi");  // ended before the tag could complete
  expect_split("<think>still thinking when the tokens ran out  ", ReasoningStart::kOutside,
               "still thinking when the tokens ran out", "");
  expect_split("", ReasoningStart::kOutside, "", "");
}

TEST(ReasoningSplitter, APromptThatOpenedTheBlockStartsInside) {
  expect_split("\nFirst, 3 < 4 and </thin is not a tag.\n</think>\nYes.", ReasoningStart::kInside,
               "First, 3 < 4 and </thin is not a tag.", "Yes.");
  expect_split("no closing tag", ReasoningStart::kInside, "no closing tag", "");
  // Only the first closing tag ends the thinking; a later one is answer text.
  expect_split("a</think>b</think>c", ReasoningStart::kInside, "a", "b</think>c");
}

TEST(ReasoningSplitter, WithoutReasoningMarkupEverythingIsContent) {
  expect_split("<think>x</think>y", ReasoningStart::kNone, "", "<think>x</think>y");
}

TEST(ReasoningSplitter, TextIsReleasedAsSoonAsItCannotBeATag) {
  ReasoningSplitter s(ReasoningStart::kOutside);
  EXPECT_EQ(s.push("<th").content, "");
  EXPECT_EQ(s.push("ink>I am ").reasoning, "I am");  // the trailing space waits: it may precede the tag
  Parts p = s.push("sure</");
  EXPECT_EQ(p.reasoning, " sure");
  p = s.push("think> Caf\xC3\xA9");
  EXPECT_EQ(p.reasoning, "");
  EXPECT_EQ(p.content, "Caf\xC3\xA9");
  EXPECT_EQ(s.push(" ok").content, " ok");
  const Parts rest = s.finish();
  EXPECT_EQ(rest.reasoning, "");
  EXPECT_EQ(rest.content, "");
}

}  // namespace
}  // namespace a3s::power::chat
