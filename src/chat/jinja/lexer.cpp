#include "chat/jinja/lexer.h"

#include <cctype>
#include <cstdlib>

#include "a3s/power/error.h"

namespace a3s::power::chat::jinja {

void syntax_error(const std::string& what, int line, int col) {
  throw Error(codes::kUnsupportedChatTemplate,
              "TemplateSyntaxError: " + what + " at " + std::to_string(line) + ":" + std::to_string(col));
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

struct Lexer {
  std::string_view src;
  std::vector<Token> out;
  std::vector<std::size_t> line_starts;

  std::pair<int, int> where(std::size_t pos) const {
    std::size_t lo = 0, hi = line_starts.size();
    while (hi - lo > 1) {
      const std::size_t mid = (lo + hi) / 2;
      if (line_starts[mid] <= pos) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return {static_cast<int>(lo + 1), static_cast<int>(pos - line_starts[lo] + 1)};
  }
  [[noreturn]] void fail(const std::string& what, std::size_t pos) const {
    auto [l, c] = where(pos);
    syntax_error(what, l, c);
  }
  Token make(Token::Kind k, std::size_t pos, std::string v = {}) const {
    Token t;
    t.kind = k;
    t.value = std::move(v);
    auto [l, c] = where(pos);
    t.line = l;
    t.col = c;
    return t;
  }

  // Text [begin, end) preceding a tag; `strip_right` from the tag's left modifier.
  void emit_text(std::size_t begin, std::size_t end, char left_mod, bool block_like, bool lstrip_next_all,
                 bool trim_newline) {
    std::string_view t = src.substr(begin, end - begin);
    std::size_t raw_begin = begin;
    if (lstrip_next_all) {
      std::size_t k = 0;
      while (k < t.size() && is_space(t[k])) ++k;
      t.remove_prefix(k);
      raw_begin += k;
    } else if (trim_newline) {
      if (t.starts_with("\r\n")) {
        t.remove_prefix(2);
        raw_begin += 2;
      } else if (t.starts_with("\n")) {
        t.remove_prefix(1);
        raw_begin += 1;
      }
    }
    if (left_mod == '-') {
      while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
    } else if (block_like && left_mod != '+') {
      const std::size_t nl = t.rfind('\n');
      const std::size_t line_begin = nl == std::string_view::npos ? 0 : nl + 1;
      const bool line_start = nl != std::string_view::npos || raw_begin == 0 || src[raw_begin - 1] == '\n';
      bool blank = true;
      for (std::size_t k = line_begin; k < t.size(); ++k) {
        if (t[k] != ' ' && t[k] != '\t') blank = false;
      }
      if (line_start && blank) t = t.substr(0, line_begin);
    }
    if (!t.empty()) out.push_back(make(Token::Kind::kText, raw_begin, std::string(t)));
  }

  // Tokens of the expression [begin, end).
  void lex_expr(std::size_t begin, std::size_t end) {
    std::size_t p = begin;
    while (p < end) {
      const char c = src[p];
      if (is_space(c)) {
        ++p;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        std::size_t q = p;
        while (q < end && (std::isalnum(static_cast<unsigned char>(src[q])) || src[q] == '_')) ++q;
        out.push_back(make(Token::Kind::kName, p, std::string(src.substr(p, q - p))));
        p = q;
        continue;
      }
      if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t q = p;
        bool is_float = false;
        std::string digits;
        while (q < end && (std::isdigit(static_cast<unsigned char>(src[q])) || src[q] == '_')) {
          if (src[q] != '_') digits += src[q];
          ++q;
        }
        if (q + 1 < end && src[q] == '.' && std::isdigit(static_cast<unsigned char>(src[q + 1]))) {
          is_float = true;
          digits += '.';
          ++q;
          while (q < end && (std::isdigit(static_cast<unsigned char>(src[q])) || src[q] == '_')) {
            if (src[q] != '_') digits += src[q];
            ++q;
          }
        }
        if (q < end && (src[q] == 'e' || src[q] == 'E')) {
          std::size_t r = q + 1;
          if (r < end && (src[r] == '+' || src[r] == '-')) ++r;
          if (r < end && std::isdigit(static_cast<unsigned char>(src[r]))) {
            is_float = true;
            digits += 'e';
            digits += std::string(src.substr(q + 1, r - q - 1));
            q = r;
            while (q < end && std::isdigit(static_cast<unsigned char>(src[q]))) digits += src[q++];
          }
        }
        Token t = make(is_float ? Token::Kind::kFloat : Token::Kind::kInt, p, digits);
        if (is_float) {
          t.f = std::strtod(digits.c_str(), nullptr);
        } else {
          errno = 0;
          t.i = std::strtoll(digits.c_str(), nullptr, 10);
          if (errno == ERANGE) fail("integer literal out of range", p);
        }
        out.push_back(t);
        p = q;
        continue;
      }
      if (c == '"' || c == '\'') {
        std::string s;
        std::size_t q = p + 1;
        bool closed = false;
        while (q < end) {
          const char d = src[q];
          if (d == c) {
            closed = true;
            ++q;
            break;
          }
          if (d == '\\' && q + 1 < end) {
            const char e = src[q + 1];
            q += 2;
            switch (e) {
              case 'n': s += '\n'; break;
              case 't': s += '\t'; break;
              case 'r': s += '\r'; break;
              case '0': s += '\0'; break;
              case 'b': s += '\b'; break;
              case 'f': s += '\f'; break;
              case 'v': s += '\v'; break;
              case 'a': s += '\a'; break;
              case '\\': s += '\\'; break;
              case '\'': s += '\''; break;
              case '"': s += '"'; break;
              case '\n': break;
              case 'x':
              case 'u':
              case 'U': {
                const std::size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                if (q + n > end) fail("truncated escape in string literal", q);
                const std::string hex(src.substr(q, n));
                char* stop = nullptr;
                const unsigned long cp = std::strtoul(hex.c_str(), &stop, 16);
                if (stop != hex.c_str() + n || cp > 0x10ffff) fail("invalid escape in string literal", q);
                q += n;
                if (cp < 0x80) {
                  s += static_cast<char>(cp);
                } else if (cp < 0x800) {
                  s += static_cast<char>(0xc0 | (cp >> 6));
                  s += static_cast<char>(0x80 | (cp & 0x3f));
                } else if (cp < 0x10000) {
                  s += static_cast<char>(0xe0 | (cp >> 12));
                  s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                  s += static_cast<char>(0x80 | (cp & 0x3f));
                } else {
                  s += static_cast<char>(0xf0 | (cp >> 18));
                  s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
                  s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                  s += static_cast<char>(0x80 | (cp & 0x3f));
                }
                break;
              }
              default:
                s += '\\';
                s += e;
            }
            continue;
          }
          s += d;
          ++q;
        }
        if (!closed) fail("unterminated string literal", p);
        out.push_back(make(Token::Kind::kString, p, std::move(s)));
        p = q;
        continue;
      }
      static constexpr std::string_view kTwo[] = {"**", "//", "==", "!=", "<=", ">="};
      bool matched = false;
      for (auto op : kTwo) {
        if (src.substr(p, 2) == op && p + 2 <= end) {
          out.push_back(make(Token::Kind::kOp, p, std::string(op)));
          p += 2;
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (std::string_view("+-*/%~<>=()[]{},.:|").find(c) != std::string_view::npos) {
        out.push_back(make(Token::Kind::kOp, p, std::string(1, c)));
        ++p;
        continue;
      }
      fail(std::string("unexpected character '") + (std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?") + "'", p);
    }
  }

  // End of a `{{`/`{%` tag starting at `p` (past the opener): the position of the closer, skipping strings.
  std::size_t find_close(std::size_t p, std::string_view closer, std::size_t open_pos) const {
    char quote = 0;
    while (p < src.size()) {
      const char c = src[p];
      if (quote != 0) {
        if (c == '\\') {
          p += 2;
          continue;
        }
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (src.substr(p, closer.size()) == closer) {
        return p;
      }
      ++p;
    }
    fail("unclosed tag", open_pos);
  }

  void run() {
    line_starts.push_back(0);
    for (std::size_t k = 0; k < src.size(); ++k) {
      if (src[k] == '\n') line_starts.push_back(k + 1);
    }
    std::size_t pos = 0;
    bool lstrip_all = false;  // previous tag ended with '-'
    bool trim_nl = false;     // previous block tag ended without modifier (trim_blocks)
    while (true) {
      std::size_t open = src.find('{', pos);
      while (open != std::string_view::npos && open + 1 < src.size() && src[open + 1] != '{' &&
             src[open + 1] != '%' && src[open + 1] != '#') {
        open = src.find('{', open + 1);
      }
      if (open == std::string_view::npos || open + 1 >= src.size()) {
        emit_text(pos, src.size(), 0, false, lstrip_all, trim_nl);
        break;
      }
      const char kind = src[open + 1];
      char left = 0;
      std::size_t inner = open + 2;
      if (inner < src.size() && (src[inner] == '-' || src[inner] == '+')) left = src[inner++];
      const bool block_like = kind != '{';
      emit_text(pos, open, left, block_like, lstrip_all, trim_nl);
      const std::string_view closer = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
      std::size_t close;
      if (kind == '#') {
        close = src.find("#}", inner);
        if (close == std::string_view::npos) fail("unclosed comment", open);
      } else {
        close = find_close(inner, closer, open);
      }
      std::size_t inner_end = close;
      char right = 0;
      if (inner_end > inner && (src[inner_end - 1] == '-' || src[inner_end - 1] == '+')) {
        right = src[inner_end - 1];
        --inner_end;
      }
      pos = close + 2;
      lstrip_all = right == '-';
      trim_nl = block_like && right != '+' && right != '-';
      if (kind == '#') continue;
      // {% raw %}: verbatim until {% endraw %}.
      if (kind == '%') {
        std::size_t a = inner;
        while (a < inner_end && is_space(src[a])) ++a;
        std::size_t b = inner_end;
        while (b > a && is_space(src[b - 1])) --b;
        if (src.substr(a, b - a) == "raw") {
          std::size_t search = pos;
          while (true) {
            const std::size_t e = src.find("{%", search);
            if (e == std::string_view::npos) fail("missing endraw", open);
            std::size_t q = e + 2;
            char rl = 0;
            if (q < src.size() && (src[q] == '-' || src[q] == '+')) rl = src[q++];
            while (q < src.size() && is_space(src[q])) ++q;
            if (src.substr(q, 6) != "endraw") {
              search = e + 2;
              continue;
            }
            q += 6;
            while (q < src.size() && is_space(src[q])) ++q;
            char rr = 0;
            if (q < src.size() && (src[q] == '-' || src[q] == '+')) rr = src[q++];
            if (src.substr(q, 2) != "%}") fail("malformed endraw", e);
            emit_text(pos, e, rl, true, lstrip_all, trim_nl);
            pos = q + 2;
            lstrip_all = rr == '-';
            trim_nl = rr != '+' && rr != '-';
            break;
          }
          continue;
        }
      }
      out.push_back(make(kind == '{' ? Token::Kind::kVarBegin : Token::Kind::kBlockBegin, open));
      lex_expr(inner, inner_end);
      out.push_back(make(kind == '{' ? Token::Kind::kVarEnd : Token::Kind::kBlockEnd, close));
    }
    out.push_back(make(Token::Kind::kEof, src.size()));
  }
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) {
  Lexer lx{source, {}, {}};
  lx.run();
  return std::move(lx.out);
}

}  // namespace a3s::power::chat::jinja
