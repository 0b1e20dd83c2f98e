// One choice's reply as the caller is given it: a reasoning model's thinking split from its answer
// (chat/reasoning.h, ReasoningSplitter) and, when the reply is read for tool calls, the calls read out
// of the answer in the template's syntax (chat/tool_calls.h, ToolCallStream), each given a new id
// (new_tool_call_id). The server's completion routes and the embedded runtime read replies with it.
//
// A stream pushes each text delta as it is generated and calls finish() once at the end; a finished
// reply can be read whole instead (read_whole). Both give the same content, reasoning and calls for
// the same text. Everything here is request data: the reader and its pieces wipe what they hold.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/reasoning.h"
#include "chat/tool_calls.h"

namespace a3s::power::openai {

class ReplyReader {
 public:
  // What a delta (or the end of the reply) makes final.
  struct Piece {
    std::string content;                // answer text, tool-call markup removed
    std::string reasoning;              // thinking (reasoning models; tool syntaxes that mark it)
    std::vector<chat::ToolCall> calls;  // calls completed with this piece, ids assigned
    bool empty() const { return content.empty() && reasoning.empty() && calls.empty(); }
    Piece() = default;
    Piece(Piece&&) noexcept = default;
    Piece& operator=(Piece&&) noexcept = default;
    ~Piece();
  };

  // reasoning: where the reply starts (ModelRuntime::reasoning_start; kNone: all answer); tools: the
  // syntax to read calls in (kNone: no calls are read).
  ReplyReader(chat::ReasoningStart reasoning, chat::ToolCallSyntax tools);
  ~ReplyReader();
  ReplyReader(const ReplyReader&) = delete;
  ReplyReader& operator=(const ReplyReader&) = delete;

  Piece push(std::string_view delta);
  // What the reader still held (a block cut by the end of the reply, trailing text, an unclosed call).
  Piece finish();

  // A finished reply, read whole.
  static Piece read_whole(std::string_view reply, chat::ReasoningStart reasoning, chat::ToolCallSyntax tools);

 private:
  Piece read(chat::ReasoningSplitter::Parts parts, bool end);

  chat::ToolCallSyntax syntax_;
  std::optional<chat::ReasoningSplitter> splitter_;
  std::optional<chat::ToolCallStream> tool_stream_;
};

}  // namespace a3s::power::openai
