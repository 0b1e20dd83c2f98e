#include "openai/reply_reader.h"

#include "openai/openai_response.h"
#include "privacy/wipe_text.h"

namespace a3s::power::openai {

ReplyReader::Piece::~Piece() {
  privacy::wipe_string(content);
  privacy::wipe_string(reasoning);
  wipe_tool_calls(calls);
}

ReplyReader::ReplyReader(chat::ReasoningStart reasoning, chat::ToolCallSyntax tools) : syntax_(tools) {
  if (reasoning != chat::ReasoningStart::kNone) splitter_.emplace(reasoning);
  if (tools != chat::ToolCallSyntax::kNone) tool_stream_.emplace(tools);
}

ReplyReader::~ReplyReader() {
  if (tool_stream_) privacy::wipe_string(tool_stream_->text());
}

ReplyReader::Piece ReplyReader::read(chat::ReasoningSplitter::Parts parts, bool end) {
  Piece out;
  if (!tool_stream_) {
    out.content = std::move(parts.content);
    out.reasoning = std::move(parts.reasoning);
    return out;
  }
  // The answer goes through the tool-call reader: what it makes final replaces it.
  chat::ParsedReply r = tool_stream_->push(parts.content);
  privacy::wipe_string(parts.content);
  if (end) {
    chat::ParsedReply rest = tool_stream_->finish();
    r.content += rest.content;
    r.reasoning += rest.reasoning;
    for (auto& c : rest.calls) r.calls.push_back(std::move(c));
    privacy::wipe_string(rest.content);
    privacy::wipe_string(rest.reasoning);
  }
  out.content = std::move(r.content);
  out.reasoning = std::move(parts.reasoning);
  out.reasoning += r.reasoning;
  privacy::wipe_string(r.reasoning);
  out.calls = std::move(r.calls);
  for (auto& c : out.calls) c.id = new_tool_call_id(syntax_);
  return out;
}

ReplyReader::Piece ReplyReader::push(std::string_view delta) {
  chat::ReasoningSplitter::Parts parts;
  if (splitter_) {
    parts = splitter_->push(delta);
  } else {
    parts.content = std::string(delta);
  }
  return read(std::move(parts), /*end=*/false);
}

ReplyReader::Piece ReplyReader::finish() {
  chat::ReasoningSplitter::Parts parts;
  if (splitter_) parts = splitter_->finish();
  return read(std::move(parts), /*end=*/true);
}

ReplyReader::Piece ReplyReader::read_whole(std::string_view reply, chat::ReasoningStart reasoning,
                                           chat::ToolCallSyntax tools) {
  Piece out;
  if (reasoning != chat::ReasoningStart::kNone) {
    chat::ReasoningSplitter::Parts parts = chat::ReasoningSplitter::split(reply, reasoning);
    out.content = std::move(parts.content);
    out.reasoning = std::move(parts.reasoning);
  } else {
    out.content = std::string(reply);
  }
  if (tools != chat::ToolCallSyntax::kNone) {
    chat::ParsedReply parsed = chat::parse_tool_calls(out.content, tools);
    privacy::wipe_string(out.content);
    out.content = std::move(parsed.content);
    out.reasoning += parsed.reasoning;
    privacy::wipe_string(parsed.reasoning);
    out.calls = std::move(parsed.calls);
    for (auto& call : out.calls) call.id = new_tool_call_id(tools);
  }
  return out;
}

}  // namespace a3s::power::openai
