#include "chat/jinja/parser.h"

#include <initializer_list>

#include "chat/jinja/lexer.h"

namespace a3s::power::chat::jinja {
namespace {

using K = Token::Kind;

struct Parser {
  std::vector<Token> toks;
  std::size_t p = 0;
  int depth = 0;

  const Token& cur() const { return toks[p]; }
  const Token& peek(std::size_t n = 1) const { return toks[std::min(p + n, toks.size() - 1)]; }
  [[noreturn]] void fail(const std::string& what) const { syntax_error(what, cur().line, cur().col); }
  [[noreturn]] void fail_at(const std::string& what, const Token& t) const { syntax_error(what, t.line, t.col); }
  bool is_op(std::string_view op) const { return cur().kind == K::kOp && cur().value == op; }
  bool is_name(std::string_view n) const { return cur().kind == K::kName && cur().value == n; }
  bool accept_op(std::string_view op) {
    if (!is_op(op)) return false;
    ++p;
    return true;
  }
  bool accept_name(std::string_view n) {
    if (!is_name(n)) return false;
    ++p;
    return true;
  }
  void expect_op(std::string_view op) {
    if (!accept_op(op)) fail("expected '" + std::string(op) + "'" + got());
  }
  std::string got() const {
    switch (cur().kind) {
      case K::kBlockEnd:
        return ", got end of statement";
      case K::kVarEnd:
        return ", got end of print statement";
      case K::kEof:
        return ", got end of template";
      case K::kName:
      case K::kOp:
        return ", got '" + cur().value + "'";
      default:
        return "";
    }
  }
  std::string expect_name() {
    if (cur().kind != K::kName) fail("expected a name" + got());
    return toks[p++].value;
  }
  void expect_block_end() {
    if (cur().kind != K::kBlockEnd) fail("expected end of statement" + got());
    ++p;
  }

  struct DepthGuard {
    Parser& ps;
    explicit DepthGuard(Parser& x) : ps(x) {
      if (++ps.depth > kMaxNesting) ps.fail("template nesting deeper than " + std::to_string(kMaxNesting));
    }
    ~DepthGuard() { --ps.depth; }
  };

  ExprPtr node(Expr::Kind k, const Token& at) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->line = at.line;
    e->col = at.col;
    return e;
  }

  // ---- expressions ----
  ExprPtr expression(bool with_cond = true) {
    DepthGuard g(*this);
    const Token& at = cur();
    ExprPtr e = parse_or();
    if (with_cond && is_name("if")) {
      ++p;
      auto c = node(Expr::Kind::kCond, at);
      ExprPtr cond = parse_or();
      ExprPtr other;
      if (accept_name("else")) other = expression();
      c->items.push_back(std::move(cond));
      c->items.push_back(std::move(e));
      c->items.push_back(std::move(other));
      return c;
    }
    return e;
  }
  ExprPtr binary(const Token& at, std::string op, ExprPtr a, ExprPtr b) {
    auto e = node(Expr::Kind::kBinary, at);
    e->name = std::move(op);
    e->items.push_back(std::move(a));
    e->items.push_back(std::move(b));
    return e;
  }
  ExprPtr parse_or() {
    const Token& at = cur();
    ExprPtr e = parse_and();
    while (accept_name("or")) e = binary(at, "or", std::move(e), parse_and());
    return e;
  }
  ExprPtr parse_and() {
    const Token& at = cur();
    ExprPtr e = parse_not();
    while (accept_name("and")) e = binary(at, "and", std::move(e), parse_not());
    return e;
  }
  ExprPtr parse_not() {
    DepthGuard g(*this);
    const Token& at = cur();
    if (accept_name("not")) {
      auto e = node(Expr::Kind::kUnary, at);
      e->name = "not";
      e->items.push_back(parse_not());
      return e;
    }
    return parse_compare();
  }
  ExprPtr parse_compare() {
    const Token& at = cur();
    ExprPtr first = parse_math1();
    ExprPtr cmp;
    while (true) {
      std::string op;
      if (cur().kind == K::kOp &&
          (cur().value == "==" || cur().value == "!=" || cur().value == "<" || cur().value == "<=" ||
           cur().value == ">" || cur().value == ">=")) {
        op = toks[p++].value;
      } else if (is_name("in")) {
        ++p;
        op = "in";
      } else if (is_name("not") && peek().kind == K::kName && peek().value == "in") {
        p += 2;
        op = "notin";
      } else {
        break;
      }
      if (!cmp) {
        cmp = node(Expr::Kind::kCompare, at);
        cmp->items.push_back(std::move(first));
      }
      cmp->ops.push_back(op);
      cmp->items.push_back(parse_math1());
    }
    return cmp ? std::move(cmp) : std::move(first);
  }
  ExprPtr parse_math1() {
    const Token& at = cur();
    ExprPtr e = parse_concat();
    while (is_op("+") || is_op("-")) {
      std::string op = toks[p++].value;
      e = binary(at, op, std::move(e), parse_concat());
    }
    return e;
  }
  ExprPtr parse_concat() {
    const Token& at = cur();
    ExprPtr e = parse_math2();
    while (accept_op("~")) e = binary(at, "~", std::move(e), parse_math2());
    return e;
  }
  ExprPtr parse_math2() {
    const Token& at = cur();
    ExprPtr e = parse_pow();
    while (is_op("*") || is_op("/") || is_op("//") || is_op("%")) {
      std::string op = toks[p++].value;
      e = binary(at, op, std::move(e), parse_pow());
    }
    return e;
  }
  ExprPtr parse_pow() {
    const Token& at = cur();
    ExprPtr e = parse_unary();
    while (accept_op("**")) e = binary(at, "**", std::move(e), parse_unary());
    return e;
  }
  ExprPtr parse_unary(bool with_filter = true) {
    DepthGuard g(*this);
    const Token& at = cur();
    ExprPtr e;
    if (is_op("-") || is_op("+")) {
      e = node(Expr::Kind::kUnary, at);
      e->name = toks[p++].value;
      e->items.push_back(parse_unary(false));
    } else {
      e = parse_primary();
    }
    e = parse_postfix(std::move(e));
    if (with_filter) e = parse_filter_expr(std::move(e));
    return e;
  }
  ExprPtr parse_primary() {
    DepthGuard g(*this);
    const Token& at = cur();
    switch (at.kind) {
      case K::kName: {
        ++p;
        auto e = node(Expr::Kind::kLiteral, at);
        if (at.value == "true" || at.value == "True") {
          e->lit = Value::boolean(true);
        } else if (at.value == "false" || at.value == "False") {
          e->lit = Value::boolean(false);
        } else if (at.value == "none" || at.value == "None") {
          e->lit = Value::none();
        } else {
          e->kind = Expr::Kind::kName;
          e->name = at.value;
        }
        return e;
      }
      case K::kString: {
        std::string s;
        while (cur().kind == K::kString) s += toks[p++].value;
        auto e = node(Expr::Kind::kLiteral, at);
        e->lit = Value::str(std::move(s));
        return e;
      }
      case K::kInt: {
        ++p;
        auto e = node(Expr::Kind::kLiteral, at);
        e->lit = Value::integer(at.i);
        return e;
      }
      case K::kFloat: {
        ++p;
        auto e = node(Expr::Kind::kLiteral, at);
        e->lit = Value::floating(at.f);
        return e;
      }
      case K::kOp:
        if (at.value == "(") {
          ++p;
          if (accept_op(")")) return node(Expr::Kind::kTuple, at);
          ExprPtr first = expression();
          if (accept_op(")")) return first;
          auto t = node(Expr::Kind::kTuple, at);
          t->items.push_back(std::move(first));
          while (accept_op(",")) {
            if (is_op(")")) break;
            t->items.push_back(expression());
          }
          expect_op(")");
          return t;
        }
        if (at.value == "[") {
          ++p;
          auto l = node(Expr::Kind::kList, at);
          while (!is_op("]")) {
            l->items.push_back(expression());
            if (!accept_op(",")) break;
          }
          expect_op("]");
          return l;
        }
        if (at.value == "{") {
          ++p;
          auto d = node(Expr::Kind::kDict, at);
          while (!is_op("}")) {
            d->items.push_back(expression());
            expect_op(":");
            d->items.push_back(expression());
            if (!accept_op(",")) break;
          }
          expect_op("}");
          return d;
        }
        break;
      default:
        break;
    }
    fail("unexpected token" + got());
  }
  void parse_args(Expr& call) {
    // after '('
    while (!is_op(")")) {
      if (cur().kind == K::kName && peek().kind == K::kOp && peek().value == "=") {
        std::string key = toks[p].value;
        p += 2;
        call.kwargs.emplace_back(std::move(key), expression());
      } else {
        if (!call.kwargs.empty()) fail("positional argument after keyword argument");
        call.items.push_back(expression());
      }
      if (!accept_op(",")) break;
    }
    expect_op(")");
  }
  ExprPtr parse_postfix(ExprPtr e) {
    while (true) {
      const Token& at = cur();
      if (accept_op(".")) {
        if (cur().kind != K::kName && cur().kind != K::kInt) fail("expected an attribute name" + got());
        auto a = node(Expr::Kind::kAttr, at);
        if (cur().kind == K::kInt) {
          a->kind = Expr::Kind::kSubscript;
          auto idx = node(Expr::Kind::kLiteral, cur());
          idx->lit = Value::integer(cur().i);
          ++p;
          a->items.push_back(std::move(e));
          a->items.push_back(std::move(idx));
        } else {
          a->name = toks[p++].value;
          a->items.push_back(std::move(e));
        }
        e = std::move(a);
      } else if (accept_op("[")) {
        ExprPtr parts[3];
        int colons = 0;
        while (true) {
          if (is_op(":")) {
            ++p;
            if (++colons > 2) fail("too many ':' in a slice");
            continue;
          }
          if (is_op("]")) break;
          if (parts[colons]) fail("expected ']'" + got());
          parts[colons] = expression();
        }
        expect_op("]");
        if (colons == 0) {
          if (!parts[0]) fail("empty subscript");
          auto s = node(Expr::Kind::kSubscript, at);
          s->items.push_back(std::move(e));
          s->items.push_back(std::move(parts[0]));
          e = std::move(s);
        } else {
          auto s = node(Expr::Kind::kSlice, at);
          s->items.push_back(std::move(e));
          for (auto& part : parts) s->items.push_back(std::move(part));
          e = std::move(s);
        }
      } else if (accept_op("(")) {
        auto c = node(Expr::Kind::kCall, at);
        c->items.push_back(std::move(e));
        parse_args(*c);
        e = std::move(c);
      } else {
        return e;
      }
    }
  }
  ExprPtr parse_filter(ExprPtr subject) {
    const Token& at = cur();
    auto f = node(Expr::Kind::kFilter, at);
    f->name = expect_name();
    f->items.push_back(std::move(subject));
    if (accept_op("(")) parse_args(*f);
    return f;
  }
  ExprPtr parse_filter_expr(ExprPtr e) {
    while (true) {
      if (accept_op("|")) {
        e = parse_filter(std::move(e));
      } else if (is_name("is")) {
        const Token& at = cur();
        ++p;
        auto t = node(Expr::Kind::kTest, at);
        t->negated = accept_name("not");
        t->name = expect_name();
        t->items.push_back(std::move(e));
        if (accept_op("(")) {
          parse_args(*t);
        } else if ((cur().kind == K::kName && cur().value != "else" && cur().value != "or" &&
                    cur().value != "and" && cur().value != "if" && cur().value != "not" && cur().value != "in" &&
                    cur().value != "is") ||
                   cur().kind == K::kString || cur().kind == K::kInt || cur().kind == K::kFloat ||
                   is_op("[") || is_op("{")) {
          t->items.push_back(parse_primary());
        }
        e = std::move(t);
      } else {
        return e;
      }
    }
  }

  // ---- statements ----
  std::string expect_target() {
    if (cur().kind == K::kName) {
      static constexpr std::string_view kReserved[] = {"in", "not", "and", "or", "is", "if", "else", "true", "false", "none"};
      for (auto r : kReserved) {
        if (cur().value == r) fail("expected a name" + got());
      }
    }
    return expect_name();
  }
  std::vector<std::string> parse_targets() {
    std::vector<std::string> names;
    const bool paren = accept_op("(");
    names.push_back(expect_target());
    while (accept_op(",")) {
      if (paren && is_op(")")) break;
      names.push_back(expect_target());
    }
    if (paren) expect_op(")");
    return names;
  }
  StmtPtr stmt(Stmt::Kind k, const Token& at) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->line = at.line;
    s->col = at.col;
    return s;
  }
  // Parses statements until a block tag whose keyword is one of `ends`; returns that keyword
  // (the position is after it). `ends` empty → until end of template.
  std::string parse_body(Body& body, std::initializer_list<std::string_view> ends, const Token& opener) {
    DepthGuard g(*this);
    while (true) {
      const Token& t = cur();
      if (t.kind == K::kEof) {
        if (ends.size() == 0) return "";
        fail_at("unclosed block: missing '" + std::string(*ends.begin()) + "'", opener);
      }
      if (t.kind == K::kText) {
        auto s = stmt(Stmt::Kind::kText, t);
        s->text = t.value;
        body.push_back(std::move(s));
        ++p;
        continue;
      }
      if (t.kind == K::kVarBegin) {
        ++p;
        auto s = stmt(Stmt::Kind::kOutput, t);
        s->expr = expression();
        if (is_op(",")) {
          auto tup = node(Expr::Kind::kTuple, t);
          tup->items.push_back(std::move(s->expr));
          while (accept_op(",")) {
            if (cur().kind == K::kVarEnd) break;
            tup->items.push_back(expression());
          }
          s->expr = std::move(tup);
        }
        if (cur().kind != K::kVarEnd) fail("expected end of print statement" + got());
        ++p;
        body.push_back(std::move(s));
        continue;
      }
      if (t.kind != K::kBlockBegin) fail("unexpected token" + got());
      ++p;
      if (cur().kind != K::kName) fail("expected a statement keyword" + got());
      const std::string kw = cur().value;
      for (auto e : ends) {
        if (kw == e) {
          ++p;
          return kw;
        }
      }
      body.push_back(parse_statement());
    }
  }
  StmtPtr parse_statement() {
    const Token& at = cur();
    const std::string kw = toks[p++].value;
    if (kw == "if") {
      auto s = stmt(Stmt::Kind::kIf, at);
      s->conds.push_back(expression());
      expect_block_end();
      while (true) {
        s->bodies.emplace_back();
        const std::string end = parse_body(s->bodies.back(), {"endif", "elif", "else"}, at);
        if (end == "elif") {
          s->conds.push_back(expression());
          expect_block_end();
          continue;
        }
        if (end == "else") {
          expect_block_end();
          s->bodies.emplace_back();
          parse_body(s->bodies.back(), {"endif"}, at);
        }
        expect_block_end();
        return s;
      }
    }
    if (kw == "for") {
      auto s = stmt(Stmt::Kind::kFor, at);
      s->targets = parse_targets();
      if (!accept_name("in")) fail("expected 'in'" + got());
      s->expr = expression(false);
      if (accept_name("if")) s->cond = expression(false);
      if (accept_name("recursive")) s->recursive = true;
      expect_block_end();
      const std::string end = parse_body(s->body, {"endfor", "else"}, at);
      if (end == "else") {
        expect_block_end();
        parse_body(s->else_body, {"endfor"}, at);
      }
      expect_block_end();
      return s;
    }
    if (kw == "set") {
      auto s = stmt(Stmt::Kind::kSet, at);
      if (cur().kind == K::kName && peek().kind == K::kOp && peek().value == ".") {
        auto obj = node(Expr::Kind::kName, cur());
        obj->name = toks[p].value;
        p += 2;
        s->attr_object = std::move(obj);
        s->targets.push_back(expect_name());
      } else {
        s->targets = parse_targets();
      }
      if (accept_op("=")) {
        s->expr = expression();
        if (is_op(",")) {
          auto tup = node(Expr::Kind::kTuple, at);
          tup->items.push_back(std::move(s->expr));
          while (accept_op(",")) tup->items.push_back(expression());
          s->expr = std::move(tup);
        }
        expect_block_end();
        return s;
      }
      if (s->attr_object || s->targets.size() != 1) fail("expected '='" + got());
      s->kind = Stmt::Kind::kSetBlock;
      while (accept_op("|")) s->filters.push_back(parse_filter(nullptr));
      expect_block_end();
      parse_body(s->body, {"endset"}, at);
      expect_block_end();
      return s;
    }
    if (kw == "macro" || kw == "call") {
      auto s = stmt(kw == "macro" ? Stmt::Kind::kMacro : Stmt::Kind::kCallBlock, at);
      if (kw == "macro") s->text = expect_name();
      const bool has_params = kw == "macro" ? (expect_op("("), true) : accept_op("(");
      if (has_params) {
        while (!is_op(")")) {
          s->targets.push_back(expect_name());
          s->defaults.push_back(accept_op("=") ? expression() : nullptr);
          if (!accept_op(",")) break;
        }
        expect_op(")");
      }
      if (kw == "call") {
        s->expr = expression();
        if (s->expr->kind != Expr::Kind::kCall) fail_at("expected a call expression", at);
      }
      expect_block_end();
      parse_body(s->body, {kw == "macro" ? "endmacro" : "endcall"}, at);
      if (cur().kind == K::kName && kw == "macro" && cur().value == s->text) ++p;
      expect_block_end();
      return s;
    }
    if (kw == "filter") {
      auto s = stmt(Stmt::Kind::kFilterBlock, at);
      s->filters.push_back(parse_filter(nullptr));
      while (accept_op("|")) s->filters.push_back(parse_filter(nullptr));
      expect_block_end();
      parse_body(s->body, {"endfilter"}, at);
      expect_block_end();
      return s;
    }
    if (kw == "break" || kw == "continue") {
      auto s = stmt(kw == "break" ? Stmt::Kind::kBreak : Stmt::Kind::kContinue, at);
      expect_block_end();
      return s;
    }
    fail_at("unknown statement '" + kw + "'", at);
  }
};

}  // namespace

Program parse(std::string_view source) {
  Parser ps;
  ps.toks = tokenize(source);
  Program prog;
  Token start;
  ps.parse_body(prog.body, {}, start);
  // A stray end tag (e.g. {% endif %} without if) reaches parse_statement as an unknown keyword.
  return prog;
}

}  // namespace a3s::power::chat::jinja
