#include "config/hcl_lexer.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "base/hex.h"
#include "base/utf8.h"
#include "config/config_error.h"

namespace a3s::power::config::hcl {

const char* describe(Token::Kind kind) {
  switch (kind) {
    case Token::Kind::Ident: return "a name";
    case Token::Kind::String: return "a string";
    case Token::Kind::Number: return "a number";
    case Token::Kind::LBrace: return "'{'";
    case Token::Kind::RBrace: return "'}'";
    case Token::Kind::LBracket: return "'['";
    case Token::Kind::RBracket: return "']'";
    case Token::Kind::Equals: return "'='";
    case Token::Kind::Colon: return "':'";
    case Token::Kind::Comma: return "','";
    case Token::Kind::Minus: return "'-'";
    case Token::Kind::Newline: return "end of line";
    case Token::Kind::Eof: return "end of file";
  }
  return "a token";
}

namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '-'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the UTF-8 sequence starting at s[i], or 0 if it is not a valid, shortest-form encoding
// of a Unicode scalar value.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const Utf8Char c = decode_utf8(s, i);
  return c.status == Utf8Status::kOk ? c.length : 0;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : src_(text), file_(file) {}

  std::vector<Token> run() {
    check_utf8();
    if (src_.substr(0, 3) == "\xEF\xBB\xBF") i_ = line_start_ = 3;
    std::vector<Token> out;
    while (true) {
      skip_blanks_and_comments();
      if (i_ >= src_.size()) {
        out.push_back({Token::Kind::Eof, "", here()});
        return out;
      }
      out.push_back(next_token());
    }
  }

 private:
  SourcePos pos_at(size_t offset) const {
    SourcePos p{file_, 1, 1};
    size_t start = 0;
    for (size_t k = 0; k < offset && k < src_.size(); ++k) {
      if (src_[k] == '\n') {
        ++p.line;
        start = k + 1;
      }
    }
    p.col = static_cast<int>(offset - start) + 1;
    return p;
  }
  SourcePos here() const {
    return SourcePos{file_, line_, static_cast<int>(i_ - line_start_) + 1};
  }
  char peek(size_t ahead = 0) const {
    return i_ + ahead < src_.size() ? src_[i_ + ahead] : '\0';
  }
  bool at_end(size_t ahead = 0) const { return i_ + ahead >= src_.size(); }
  // Advances one byte, keeping line bookkeeping.
  void bump() {
    if (src_[i_] == '\n') {
      ++line_;
      line_start_ = i_ + 1;
    }
    ++i_;
  }

  void check_utf8() const {
    for (size_t k = 0; k < src_.size();) {
      const size_t n = utf8_sequence_length(src_, k);
      if (n == 0) fail(pos_at(k), "invalid UTF-8");
      k += n;
    }
  }

  void skip_blanks_and_comments() {
    while (!at_end()) {
      const char c = peek();
      if (c == ' ' || c == '\t' || c == '\r') {
        bump();
      } else if (c == '#' || (c == '/' && peek(1) == '/')) {
        while (!at_end() && peek() != '\n') bump();  // the newline stays a token
      } else if (c == '/' && peek(1) == '*') {
        const SourcePos start = here();
        bump();
        bump();
        while (!(peek() == '*' && peek(1) == '/')) {
          if (at_end()) fail(start, "unterminated comment (missing '*/')");
          bump();
        }
        bump();
        bump();
      } else {
        return;
      }
    }
  }

  Token next_token() {
    const SourcePos start = here();
    const char c = peek();
    auto single = [&](Token::Kind k) {
      bump();
      return Token{k, "", start};
    };
    switch (c) {
      case '\n': return single(Token::Kind::Newline);
      case '{': return single(Token::Kind::LBrace);
      case '}': return single(Token::Kind::RBrace);
      case '[': return single(Token::Kind::LBracket);
      case ']': return single(Token::Kind::RBracket);
      case '=': return single(Token::Kind::Equals);
      case ':': return single(Token::Kind::Colon);
      case ',': return single(Token::Kind::Comma);
      case '-': return single(Token::Kind::Minus);
      case '"': return quoted_string();
      default: break;
    }
    if (c == '<' && peek(1) == '<') return heredoc();
    if (is_digit(c)) return number();
    if (is_ident_start(c)) {
      const size_t b = i_;
      while (!at_end() && is_ident_char(peek())) bump();
      return Token{Token::Kind::Ident, std::string(src_.substr(b, i_ - b)), start};
    }
    const auto u = static_cast<unsigned char>(c);
    char msg[64];
    if (u > 0x20 && u < 0x7F) {
      std::snprintf(msg, sizeof msg, "unexpected character '%c'", c);
    } else {
      std::snprintf(msg, sizeof msg, "unexpected character (byte 0x%02X)", u);
    }
    fail(start, msg);
  }

  Token number() {
    const SourcePos start = here();
    const size_t b = i_;
    while (is_digit(peek())) bump();
    if (peek() == '.') {
      bump();
      if (!is_digit(peek())) fail(start, "malformed number");
      while (is_digit(peek())) bump();
    }
    if (peek() == 'e' || peek() == 'E') {
      bump();
      if (peek() == '+' || peek() == '-') bump();
      if (!is_digit(peek())) fail(start, "malformed number");
      while (is_digit(peek())) bump();
    }
    if (is_ident_char(peek()) && peek() != '-') fail(start, "malformed number");
    return Token{Token::Kind::Number, std::string(src_.substr(b, i_ - b)), start};
  }

  // "$${" → "${", "%%{" → "%{"; an unescaped "${" or "%{" is a template, which we refuse.
  // Returns true if it consumed a template-related sequence.
  bool template_sequence(std::string& out) {
    const char c = peek();
    if ((c == '$' || c == '%') && peek(1) == c && peek(2) == '{') {
      out += c;
      out += '{';
      bump();
      bump();
      bump();
      return true;
    }
    if ((c == '$' || c == '%') && peek(1) == '{') {
      fail(here(), "template sequences are not supported (write $${ or %%{ for a literal)");
    }
    return false;
  }

  uint32_t hex_digits(int n, const SourcePos& escape_pos) {
    uint32_t v = 0;
    for (int k = 0; k < n; ++k) {
      const char h = peek();
      const int d = hex_digit_value(h);
      if (d < 0) fail(escape_pos, "invalid unicode escape (expected " + std::to_string(n) + " hex digits)");
      v = (v << 4) | static_cast<uint32_t>(d);
      bump();
    }
    return v;
  }

  Token quoted_string() {
    const SourcePos start = here();
    bump();  // opening quote
    std::string out;
    while (true) {
      if (at_end() || peek() == '\n') fail(start, "unterminated string");
      const char c = peek();
      if (c == '"') {
        bump();
        return Token{Token::Kind::String, std::move(out), start};
      }
      if (c == '\\') {
        const SourcePos esc = here();
        bump();
        if (at_end()) fail(start, "unterminated string");
        const char e = peek();
        bump();
        switch (e) {
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case 'u':
          case 'U': {
            uint32_t cp = hex_digits(e == 'u' ? 4 : 8, esc);
            if (e == 'u' && cp >= 0xD800 && cp <= 0xDBFF) {
              // A UTF-16 surrogate pair written as two \u escapes.
              if (peek() != '\\' || peek(1) != 'u') fail(esc, "unpaired surrogate in unicode escape");
              bump();
              bump();
              const uint32_t lo = hex_digits(4, esc);
              if (lo < 0xDC00 || lo > 0xDFFF) fail(esc, "unpaired surrogate in unicode escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
              fail(esc, "invalid unicode escape (not a Unicode scalar value)");
            }
            append_utf8(out, cp);
            break;
          }
          default: fail(esc, "invalid escape sequence");
        }
        continue;
      }
      if (template_sequence(out)) continue;
      out += c;
      bump();
    }
  }

  Token heredoc() {
    const SourcePos start = here();
    bump();
    bump();
    bool strip_indent = false;
    if (peek() == '-') {
      strip_indent = true;
      bump();
    }
    if (!is_ident_start(peek())) fail(start, "expected a heredoc marker after '<<'");
    const size_t mb = i_;
    while (!at_end() && is_ident_char(peek())) bump();
    const std::string marker(src_.substr(mb, i_ - mb));
    if (peek() == '\r') bump();
    if (peek() != '\n') fail(start, "a heredoc marker must be followed by a newline");
    bump();

    // Collect raw lines until one that is the marker alone (surrounding blanks allowed).
    std::vector<std::string> lines;
    while (true) {
      if (at_end()) fail(start, "unterminated heredoc (missing closing marker)");
      const size_t lb = i_;
      size_t le = src_.find('\n', lb);
      if (le == std::string_view::npos) le = src_.size();
      std::string_view line = src_.substr(lb, le - lb);
      std::string_view trimmed = line;
      while (!trimmed.empty() && (trimmed.front() == ' ' || trimmed.front() == '\t')) {
        trimmed.remove_prefix(1);
      }
      while (!trimmed.empty() &&
             (trimmed.back() == ' ' || trimmed.back() == '\t' || trimmed.back() == '\r')) {
        trimmed.remove_suffix(1);
      }
      if (trimmed == marker) {
        // Leave the line's newline for the next token.
        while (i_ < le) bump();
        break;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      lines.emplace_back(line);
      while (i_ < le) bump();
      if (!at_end()) bump();  // the newline
    }

    size_t indent = std::string::npos;
    if (strip_indent) {
      for (const auto& l : lines) {
        const size_t first = l.find_first_not_of(" \t");
        if (first == std::string::npos) continue;  // blank lines do not count
        indent = std::min(indent, first);
      }
    }
    std::string out;
    for (const auto& l : lines) {
      std::string_view body = l;
      if (strip_indent && indent != std::string::npos) {
        body.remove_prefix(std::min(indent, body.size()));
      }
      // Apply the template escape rules to the content.
      for (size_t k = 0; k < body.size(); ++k) {
        const char c = body[k];
        if ((c == '$' || c == '%') && k + 2 < body.size() && body[k + 1] == c && body[k + 2] == '{') {
          out += c;
          out += '{';
          k += 2;
        } else if ((c == '$' || c == '%') && k + 1 < body.size() && body[k + 1] == '{') {
          fail(start, "template sequences are not supported in heredocs");
        } else {
          out += c;
        }
      }
      out += '\n';
    }
    return Token{Token::Kind::String, std::move(out), start};
  }

  std::string_view src_;
  const std::string& file_;
  size_t i_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text, const std::string& file) {
  return Lexer(text, file).run();
}

}  // namespace a3s::power::config::hcl
