// Tool calls in a model's reply: which syntax a chat template teaches, and parsing a reply written in
// it into text content and OpenAI-style calls (a function name and its arguments as JSON text).
//
// Syntaxes (as the templates in docs/chat-templates.md render an assistant's tool calls):
//   kHermes       <tool_call>{"name": N, "arguments": {…}}</tool_call>, repeated (Hermes 2/3, Qwen 2.5,
//                 QwQ, Qwen 3, Granite 4).
//   kLlama3       the whole reply is {"name": N, "parameters": {…}} (or "arguments"), several separated
//                 by ";" or whitespace, optionally after <|python_tag|> (Llama 3.1–3.3).
//   kMistral      [TOOL_CALLS][{"name": N, "arguments": {…}, "id": I}, …] (Mistral Nemo), or
//                 [TOOL_CALLS]N[ARGS]{…} per call (later Mistral templates).
//   kFunctionary  the reply continues a ">>>" the prompt ends with: "all\n" text, or "N\n" and the
//                 arguments; further parts start with ">>>" (functionary v3.2).
//   kCommandR     <|START_ACTION|>[{"tool_call_id": I, "tool_name": N, "parameters": {…}}]<|END_ACTION|>,
//                 the answer in <|START_RESPONSE|>…<|END_RESPONSE|>, thinking in
//                 <|START_THINKING|>…<|END_THINKING|> (Command R7B).
//   kDeepseekR1   <｜tool▁calls▁begin｜> then per call <｜tool▁call▁begin｜>function<｜tool▁sep｜>N
//                 "\n```json\n" {…} "\n```" <｜tool▁call▁end｜>, then <｜tool▁calls▁end｜> (DeepSeek R1, V3).
//   kDeepseekDsml <｜DSML｜function_calls> <｜DSML｜invoke name="N"> <｜DSML｜parameter name="K"
//                 string="true|false">V</｜DSML｜parameter> … (DeepSeek V3.2; string="true": V is the
//                 text of a string, else JSON).
//   kGptOss       harmony messages: a header (channel, optional " to=functions.N") then <|message|>,
//                 a body ended by <|end|>, <|call|> or <|return|>; messages after the first start with
//                 <|start|>assistant. Channel "analysis" is thinking; a message to functions.N is a call;
//                 the rest is the answer (gpt-oss).
// The markers are the control tokens' texts, so the generation that is parsed must render control
// tokens as text (GenerationRequest::render_control_tokens).
//
// Nothing is lost: text that is not a well-formed call stays in the content, where it was.
// Errors: none; malformed input is content.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::chat {

enum class ToolCallSyntax {
  kNone,  // the template renders no tool calls we can read back: tools are refused
  kHermes,
  kLlama3,
  kMistral,
  kFunctionary,
  kCommandR,
  kDeepseekR1,
  kDeepseekDsml,
  kGptOss,
};

// "none", "hermes", "llama3", "mistral", "functionary", "command-r", "deepseek-r1", "deepseek-dsml", "gpt-oss".
const char* tool_call_syntax_name(ToolCallSyntax s);

// The syntax a Jinja chat-template source renders assistant tool calls in (by its distinctive
// markers, most specific first); kNone for no source or none recognised.
ToolCallSyntax tool_call_syntax_of(std::string_view template_source);

struct ToolCall {
  std::string id;         // the id the model wrote (Command R, Mistral), else "" (the server assigns one)
  std::string name;
  std::string arguments;  // a JSON object's text, as the model wrote it (numbers and spacing kept)
};

struct ParsedReply {
  std::string content;    // the answer text, markers removed
  std::string reasoning;  // thinking the syntax marks itself (Command R, gpt-oss); "" otherwise
  std::vector<ToolCall> calls;
};

// Parses a whole reply.
ParsedReply parse_tool_calls(std::string_view reply, ToolCallSyntax syntax);

// Parses a reply as it streams in: each push() returns what the text so far makes final — content
// and reasoning to append, and calls completed since the last push — holding back text that may
// still become part of a call (a partial marker, an unclosed call). finish() returns the rest when
// the reply has ended. The concatenation of everything returned equals parse_tool_calls() of the
// whole reply.
class ToolCallStream {
 public:
  explicit ToolCallStream(ToolCallSyntax syntax) : syntax_(syntax) {}
  ParsedReply push(std::string_view delta);
  ParsedReply finish();
  // The text received so far (the caller wipes it with the request).
  std::string& text() { return text_; }

 private:
  ParsedReply advance(bool final);
  ToolCallSyntax syntax_;
  std::string text_;
  size_t content_sent_ = 0;
  size_t reasoning_sent_ = 0;
  size_t calls_sent_ = 0;
};

}  // namespace a3s::power::chat
