// Parser of the Jinja subset (grammar and precedence of Jinja2: or < and < not < comparisons <
// + - < ~ < * / // % < ** < unary < filters and tests < postfix), bounded nesting.
#pragma once

#include <string_view>

#include "chat/jinja/ast.h"

namespace a3s::power::chat::jinja {

inline constexpr int kMaxNesting = 64;  // nested expressions and statements

// Throws Error(codes::kUnsupportedChatTemplate) "TemplateSyntaxError: <what> at <line>:<col>".
Program parse(std::string_view source);

}  // namespace a3s::power::chat::jinja
