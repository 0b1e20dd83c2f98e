// Lexer of the Jinja subset: template text and `{{ }}` / `{% %}` / `{# #}` tags, with the whitespace
// rules of transformers' environment (trim_blocks and lstrip_blocks on, `-` and `+` modifiers) and
// `{% raw %}` blocks, then the tokens inside tags.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::chat::jinja {

struct Token {
  enum class Kind { kText, kVarBegin, kVarEnd, kBlockBegin, kBlockEnd, kName, kString, kInt, kFloat, kOp, kEof };
  Kind kind = Kind::kEof;
  std::string value;  // text, name, decoded string, operator
  std::int64_t i = 0;
  double f = 0;
  int line = 1;
  int col = 1;
};

// Throws Error(codes::kUnsupportedChatTemplate) "TemplateSyntaxError: <what> at <line>:<col>".
std::vector<Token> tokenize(std::string_view source);

[[noreturn]] void syntax_error(const std::string& what, int line, int col);

}  // namespace a3s::power::chat::jinja
