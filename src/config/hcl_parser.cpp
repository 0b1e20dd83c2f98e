#include "config/hcl_parser.h"

#include <charconv>
#include <cmath>
#include <map>
#include <system_error>
#include <vector>

#include "config/config_error.h"
#include "config/hcl_lexer.h"

namespace a3s::power::config::hcl {
namespace {

using K = Token::Kind;

constexpr int kMaxDepth = 64;

std::string line_col(const SourcePos& p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  Body parse_file() {
    Body body = parse_body(nullptr);
    return body;
  }

 private:
  const Token& cur() const { return toks_[i_]; }
  const Token& ahead(size_t n) const {
    return toks_[std::min(i_ + n, toks_.size() - 1)];
  }
  const Token& take() {
    const Token& t = toks_[i_];
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }
  void skip_newlines() {
    while (cur().kind == K::Newline) take();
  }

  void enter(const SourcePos& at) {
    if (++depth_ > kMaxDepth) fail(at, "nesting too deep");
  }
  void leave() { --depth_; }

  // Parses items until '}' (when `block` is set) or end of file. On return for a block, the
  // closing '}' has been consumed.
  Body parse_body(const Block* block) {
    Body body;
    std::map<std::string, SourcePos> seen;
    while (true) {
      skip_newlines();
      const Token& t = cur();
      if (t.kind == K::Eof) {
        if (block) {
          fail(block->open_pos, "unclosed block '" + block->type + "' (missing '}')");
        }
        return body;
      }
      if (t.kind == K::RBrace) {
        if (!block) fail(t.pos, "unexpected '}'");
        take();
        return body;
      }
      if (t.kind != K::Ident) {
        fail(t.pos, std::string("expected a key or block name, found ") + describe(t.kind));
      }
      const Token& name = take();
      if (cur().kind == K::Equals) {
        take();
        Attribute attr{name.text, name.pos, parse_value()};
        if (auto it = seen.find(attr.name); it != seen.end()) {
          fail(attr.pos, "duplicate key '" + attr.name + "' (first set at " + line_col(it->second) + ")");
        }
        seen.emplace(attr.name, attr.pos);
        body.attributes.push_back(std::move(attr));
      } else if (cur().kind == K::LBrace || cur().kind == K::String ||
                 (cur().kind == K::Ident && looks_like_block_labels())) {
        body.blocks.push_back(parse_block(name));
      } else {
        fail(cur().pos, "expected '=' after '" + name.text + "'");
      }
      end_of_item(block != nullptr);
    }
  }

  // After NAME, an identifier may only start block labels if '{' follows the labels on this line.
  bool looks_like_block_labels() const {
    for (size_t n = 0;; ++n) {
      const K k = ahead(n).kind;
      if (k == K::LBrace) return true;
      if (k != K::Ident && k != K::String) return false;
    }
  }

  Block parse_block(const Token& name) {
    Block b;
    b.type = name.text;
    b.pos = name.pos;
    while (cur().kind == K::String || cur().kind == K::Ident) {
      b.label_pos.push_back(cur().pos);
      b.labels.push_back(take().text);
    }
    if (cur().kind != K::LBrace) {
      if (cur().kind == K::Newline && ahead(1).kind == K::LBrace) {
        fail(ahead(1).pos, "the '{' of block '" + b.type + "' must be on the same line as its name");
      }
      const SourcePos at = b.label_pos.empty() ? cur().pos : b.label_pos.front();
      fail(at, "expected '=' after '" + b.type + "'");
    }
    b.open_pos = take().pos;
    enter(b.open_pos);
    b.body = parse_body(&b);
    leave();
    return b;
  }

  // An attribute or block ends at a newline, at end of file, or (inside a block) before '}'.
  void end_of_item(bool in_block) {
    const Token& t = cur();
    if (t.kind == K::Newline) {
      take();
      return;
    }
    if (t.kind == K::Eof || (in_block && t.kind == K::RBrace)) return;
    fail(t.pos, std::string("expected a newline, found ") + describe(t.kind));
  }

  Value parse_value() {
    const Token& t = cur();
    Value v;
    v.pos = t.pos;
    switch (t.kind) {
      case K::String:
        v.kind = Value::Kind::String;
        v.string = take().text;
        return v;
      case K::Number:
        return number(take(), false, t.pos);
      case K::Minus: {
        const SourcePos minus = take().pos;
        if (cur().kind != K::Number) fail(cur().pos, "expected a number after '-'");
        return number(take(), true, minus);
      }
      case K::Ident:
        if (t.text == "true" || t.text == "false") {
          v.kind = Value::Kind::Bool;
          v.boolean = take().text == "true";
          return v;
        }
        if (t.text == "null") {
          take();
          return v;
        }
        fail(t.pos, "expected a value (strings must be quoted; variables are not supported)");
      case K::LBracket:
        return list();
      case K::LBrace:
        return object();
      default:
        fail(t.pos, std::string("expected a value, found ") + describe(t.kind));
    }
  }

  Value number(const Token& t, bool negative, const SourcePos& pos) {
    Value v;
    v.pos = pos;
    const std::string text = (negative ? "-" : "") + t.text;
    const char* b = text.data();
    const char* e = text.data() + text.size();
    const bool integral = t.text.find_first_of(".eE") == std::string::npos;
    if (integral) {
      auto [p, ec] = std::from_chars(b, e, v.integer);
      if (ec == std::errc::result_out_of_range) fail(pos, "integer out of range");
      if (ec != std::errc() || p != e) fail(pos, "malformed number");
      v.kind = Value::Kind::Int;
      v.number = static_cast<double>(v.integer);
      return v;
    }
    auto [p, ec] = std::from_chars(b, e, v.number);
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && !std::isfinite(v.number))) {
      fail(pos, "number out of range");
    }
    if (ec != std::errc() || p != e) fail(pos, "malformed number");
    v.kind = Value::Kind::Float;
    return v;
  }

  Value list() {
    Value v;
    v.kind = Value::Kind::List;
    v.pos = take().pos;  // '['
    enter(v.pos);
    skip_newlines();
    while (cur().kind != K::RBracket) {
      if (cur().kind == K::Eof) fail(v.pos, "unclosed '[' (missing ']')");
      v.list.push_back(parse_value());
      skip_newlines();
      if (cur().kind == K::Comma) {
        take();
        skip_newlines();
      } else if (cur().kind == K::Eof) {
        fail(v.pos, "unclosed '[' (missing ']')");
      } else if (cur().kind != K::RBracket) {
        fail(cur().pos, std::string("expected ',' or ']', found ") + describe(cur().kind));
      }
    }
    take();  // ']'
    leave();
    return v;
  }

  Value object() {
    Value v;
    v.kind = Value::Kind::Object;
    v.pos = take().pos;  // '{'
    enter(v.pos);
    std::map<std::string, SourcePos> seen;
    while (true) {
      skip_newlines();
      if (cur().kind == K::RBrace) break;
      if (cur().kind == K::Eof) fail(v.pos, "unclosed '{' (missing '}')");
      if (cur().kind != K::Ident && cur().kind != K::String) {
        fail(cur().pos, std::string("expected an object key, found ") + describe(cur().kind));
      }
      ObjectItem item;
      item.key_pos = cur().pos;
      item.key = take().text;
      if (cur().kind != K::Equals && cur().kind != K::Colon) {
        fail(cur().pos, "expected '=' or ':' after object key");
      }
      take();
      item.value = parse_value();
      if (auto it = seen.find(item.key); it != seen.end()) {
        fail(item.key_pos, "duplicate key '" + item.key + "' (first set at " + line_col(it->second) + ")");
      }
      seen.emplace(item.key, item.key_pos);
      v.object.push_back(std::move(item));
      const K k = cur().kind;
      if (k == K::Comma || k == K::Newline) {
        take();
      } else if (k == K::Eof) {
        fail(v.pos, "unclosed '{' (missing '}')");
      } else if (k != K::RBrace) {
        fail(cur().pos, std::string("expected ',', a newline or '}', found ") + describe(k));
      }
    }
    take();  // '}'
    leave();
    return v;
  }

  std::vector<Token> toks_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

Body parse(std::string_view text, const std::string& file) {
  Parser p(tokenize(text, file));
  return p.parse_file();
}

}  // namespace a3s::power::config::hcl
