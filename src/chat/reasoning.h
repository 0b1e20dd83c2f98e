// Reasoning models (DeepSeek R1, Qwen 3, QwQ, …) write their thinking between "<think>" and
// "</think>" before the answer. ReasoningSplitter separates, as text deltas arrive, the thinking
// (the API's `reasoning_content`) from the answer (`content`).
//
// Rules: a reply that starts — after any whitespace — with "<think>" is thinking up to "</think>";
// when the prompt already opened the block (the generation prompt ends in "<think>", as DeepSeek
// R1's template writes it) the reply starts inside it. The tags are dropped, and so is the
// whitespace around the thinking and before the answer. A reply that does not start with the tag is
// all answer; a block that never closes is all thinking. Text that may still turn out to be a tag
// or the whitespace before one is held back until it cannot, so every delta is whole UTF-8 (the
// held bytes are ASCII).
#pragma once

#include <string>
#include <string_view>

namespace a3s::power::chat {

// Where a chat model's reply starts, for its template (ModelRuntime decides).
enum class ReasoningStart {
  kNone,     // the template has no reasoning markup: the whole reply is content
  kOutside,  // a reasoning template; the reply may open a "<think>" block
  kInside,   // the prompt ends inside an open "<think>" block
};

class ReasoningSplitter {
 public:
  explicit ReasoningSplitter(ReasoningStart start);

  struct Parts {
    std::string reasoning;
    std::string content;
  };

  // The parts of the reply that `text` (the next delta) makes final.
  Parts push(std::string_view text);
  // Everything still held, when the reply has ended.
  Parts finish();

  // The whole of a finished reply, split.
  static Parts split(std::string_view text, ReasoningStart start);

 private:
  enum class State { kStart, kThinking, kAfterThinking, kContent };
  State state_;
  bool thinking_begun_ = false;  // something other than whitespace came after the opening tag
  std::string held_;
};

}  // namespace a3s::power::chat
