// Lexer for the HCL subset of config files (see hcl_value.h for the reference).
//
// Tokens: identifiers ([A-Za-z_][A-Za-z0-9_-]*), quoted strings with escapes (\n \r \t \" \\ and
// \uXXXX \UXXXXXXXX; "$${" and "%%{" for literal "${" / "%{"; template interpolation is refused),
// heredocs (<<MARKER and the indent-stripping <<-MARKER, closed by MARKER alone on a line), numbers
// (digits, optional fraction, optional exponent; the sign is a separate '-' token), punctuation
// { } [ ] = : , - and newlines (significant: they end attributes). Comments: '#' and '//' to end of
// line, '/* */' (not nested). The source must be valid UTF-8 (a leading BOM is skipped).
//
// Errors: Error(codes::kConfig, "file:line:col: message") at the offending character; for an
// unterminated string, comment or heredoc the position of its start. Messages never quote string
// contents.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/hcl_value.h"

namespace a3s::power::config::hcl {

struct Token {
  enum class Kind {
    Ident, String, Number, LBrace, RBrace, LBracket, RBracket, Equals, Colon, Comma, Minus,
    Newline, Eof
  };
  Kind kind = Kind::Eof;
  std::string text;  // Ident: the name; String: decoded contents; Number: the literal as written
  SourcePos pos;
};

// Human description of a token kind for messages ("'{'", "a string", "end of file", ...).
const char* describe(Token::Kind kind);

// Splits `text` into tokens ending with one Eof token. `file` names the source in positions.
std::vector<Token> tokenize(std::string_view text, const std::string& file);

}  // namespace a3s::power::config::hcl
