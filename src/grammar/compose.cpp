#include "grammar/compose.h"

#include <cstdio>

namespace a3s::power::grammar {
namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

// Copies a quoted run (a literal or a class) from text[i], which holds its opening character, to
// its unescaped closing character `close` (or the end of the line); returns the index after it.
size_t copy_quoted(std::string_view text, size_t i, char close, std::string& out) {
  out += text[i++];
  while (i < text.size() && text[i] != '\n') {
    const char c = text[i];
    out += c;
    ++i;
    if (c == '\\' && i < text.size()) {
      out += text[i++];
    } else if (c == close) {
      break;
    }
  }
  return i;
}

}  // namespace

std::string prefix_rule_names(std::string_view text, std::string_view prefix) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') out += text[i++];
    } else if (c == '"') {
      i = copy_quoted(text, i, '"', out);
    } else if (c == '[') {
      i = copy_quoted(text, i, ']', out);
    } else if (c == '{') {
      while (i < text.size() && text[i] != '}' && text[i] != '\n') out += text[i++];
    } else if (name_char(c)) {
      out += prefix;
      while (i < text.size() && name_char(text[i])) out += text[i++];
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string grammar_literal(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

}  // namespace a3s::power::grammar
