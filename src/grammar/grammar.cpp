#include "grammar/grammar.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "base/utf8.h"
#include "crypto/secure_memory.h"

namespace a3s::power::grammar {

namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;
constexpr char32_t kSurrogateFirst = 0xD800;
constexpr char32_t kSurrogateLast = 0xDFFF;
constexpr uint32_t kUnbounded = UINT32_MAX;
constexpr size_t kNameInMessage = 64;

using Range = std::pair<char32_t, char32_t>;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string quoted(std::string_view name) {
  PrintableStyle style;
  style.max_bytes = kNameInMessage;
  style.mark_cut = true;
  return "'" + printable(name, style) + "'";
}

uint64_t element_key(Element e) {
  return (static_cast<uint64_t>(e.kind) << 32) | e.index;
}

// Sorted, merged ranges without surrogates; empty when nothing is left.
std::vector<Range> normalize(std::vector<Range> in) {
  std::sort(in.begin(), in.end());
  std::vector<Range> merged;
  for (const Range& r : in) {
    if (!merged.empty() && r.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, r.second);
    } else {
      merged.push_back(r);
    }
  }
  std::vector<Range> out;
  for (const Range& r : merged) {
    if (r.first < kSurrogateFirst)
      out.emplace_back(r.first, std::min<char32_t>(r.second, kSurrogateFirst - 1));
    if (r.second > kSurrogateLast)
      out.emplace_back(std::max<char32_t>(r.first, kSurrogateLast + 1), r.second);
  }
  return out;
}

std::vector<Range> complement(const std::vector<Range>& sorted) {
  std::vector<Range> out;
  char32_t next = 0;
  for (const Range& r : sorted) {
    if (r.first > next) out.emplace_back(next, r.first - 1);
    next = r.second + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
  return out;
}

// Rules for which some alternative consists of elements that hold: a character when `chars_hold`,
// a rule reference when the rule is in the result (the least fixpoint, by a worklist).
std::vector<uint8_t> rules_where_some_alternative_holds(const Grammar& g, bool chars_hold) {
  const size_t n_rules = g.rules.size();
  std::vector<uint8_t> holds(n_rules, 0);
  std::vector<uint32_t> alt_rule;  // the rule of each alternative
  std::vector<uint32_t> pending;   // per alternative: references not yet known to hold
  std::vector<std::vector<uint32_t>> uses(
      n_rules);  // per rule: alternatives referencing it, once per reference
  std::vector<uint32_t> work;
  for (uint32_t r = 0; r < n_rules; ++r) {
    for (uint32_t start : g.rules[r].alternatives) {
      const uint32_t alt = static_cast<uint32_t>(alt_rule.size());
      alt_rule.push_back(r);
      uint32_t count = 0;
      bool dead = false;
      for (uint32_t p = start; g.elements[p].kind != Element::Kind::kEnd; ++p) {
        const Element& e = g.elements[p];
        if (e.kind == Element::Kind::kChar) {
          if (!chars_hold) dead = true;
        } else {
          ++count;
          uses[e.index].push_back(alt);
        }
      }
      pending.push_back(dead ? UINT32_MAX : count);
      if (!dead && count == 0 && !holds[r]) {
        holds[r] = 1;
        work.push_back(r);
      }
    }
  }
  while (!work.empty()) {
    const uint32_t r = work.back();
    work.pop_back();
    for (uint32_t alt : uses[r]) {
      if (pending[alt] == UINT32_MAX || pending[alt] == 0) continue;
      if (--pending[alt] == 0 && !holds[alt_rule[alt]]) {
        holds[alt_rule[alt]] = 1;
        work.push_back(alt_rule[alt]);
      }
    }
  }
  return holds;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::shared_ptr<const Grammar> run() {
    if (s_.size() > kMaxGrammarBytes) {
      fail(0, "the grammar is larger than " + std::to_string(kMaxGrammarBytes / 1024) + " KiB");
    }
    skip_ws();
    while (pos_ < s_.size()) {
      parse_rule();
      skip_ws();
    }
    check();
    return std::make_shared<const Grammar>(std::move(g_));
  }

 private:
  struct Repeat {
    Element item;
    size_t offset;
    const char* op;
  };

  [[noreturn]] void fail(size_t offset, const std::string& what) const {
    offset = std::min(offset, s_.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < offset; ++i) {
      if (s_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    size_t column = 1;
    for (size_t i = line_start; i < offset; ++i) {
      if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) ++column;
    }
    throw Error(codes::kInvalidRequest,
                "grammar:" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  }

  bool eof() const { return pos_ >= s_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

  size_t skip_ws_from(size_t p) const {
    while (p < s_.size()) {
      const char c = s_[p];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++p;
      } else if (c == '#') {
        while (p < s_.size() && s_[p] != '\n') ++p;
      } else {
        break;
      }
    }
    return p;
  }
  void skip_ws() { pos_ = skip_ws_from(pos_); }

  // `name ::=` starts here.
  bool at_rule_start() const {
    size_t p = pos_;
    while (p < s_.size() && is_name_char(s_[p])) ++p;
    if (p == pos_) return false;
    p = skip_ws_from(p);
    return s_.substr(p, 3) == "::=";
  }

  std::string_view parse_name() {
    const size_t start = pos_;
    while (!eof() && is_name_char(peek())) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  uint32_t new_rule(bool generated, size_t offset) {
    if (g_.rules.size() >= kMaxRules) {
      fail(offset,
           "more than " + std::to_string(kMaxRules) + " rules after expanding groups and repetitions");
    }
    Rule r;
    r.name = generated ? std::string(current_rule_) : std::string();
    r.generated = generated;
    g_.rules.push_back(std::move(r));
    offset_.push_back(offset);
    defined_.push_back(generated ? 1 : 0);
    return static_cast<uint32_t>(g_.rules.size() - 1);
  }

  uint32_t user_rule(std::string_view name, size_t offset) {
    auto it = user_rules_.find(std::string(name));
    if (it != user_rules_.end()) return it->second;
    const uint32_t id = new_rule(false, offset);
    g_.rules[id].name = std::string(name);
    user_rules_.emplace(std::string(name), id);
    return id;
  }

  void count_element(size_t offset) {
    if (++element_count_ > kMaxElements) {
      fail(offset, "more than " + std::to_string(kMaxElements) + " elements after expanding repetitions");
    }
  }
  void push(std::vector<Element>& seq, Element e, size_t offset) {
    count_element(offset);
    seq.push_back(e);
  }

  void commit(uint32_t rule, std::vector<std::vector<Element>>&& alternatives, size_t offset) {
    for (std::vector<Element>& alt : alternatives) {
      count_element(offset);  // the kEnd
      g_.rules[rule].alternatives.push_back(static_cast<uint32_t>(g_.elements.size()));
      g_.elements.insert(g_.elements.end(), alt.begin(), alt.end());
      g_.elements.push_back(Element{Element::Kind::kEnd, 0});
    }
  }

  void parse_rule() {
    const size_t start = pos_;
    if (peek() == ')') fail(start, "unmatched ')'");
    const std::string_view name = parse_name();
    if (name.empty()) fail(pos_, "expected a rule name ([a-zA-Z0-9-_]+) followed by '::='");
    skip_ws();
    if (s_.substr(pos_, 3) != "::=") fail(pos_, "expected '::=' after the rule name " + quoted(name));
    pos_ += 3;
    const uint32_t id = user_rule(name, start);
    if (defined_[id]) fail(start, "rule " + quoted(name) + " is defined twice");
    defined_[id] = 1;
    offset_[id] = start;
    current_rule_ = name;
    auto alternatives = parse_alternatives(0);
    commit(id, std::move(alternatives), start);
  }

  std::vector<std::vector<Element>> parse_alternatives(size_t depth) {
    std::vector<std::vector<Element>> alternatives;
    while (true) {
      alternatives.push_back(parse_sequence(depth));
      skip_ws();
      if (peek() != '|' || eof()) break;
      ++pos_;
    }
    return alternatives;
  }

  std::vector<Element> parse_sequence(size_t depth) {
    std::vector<Element> seq;
    while (true) {
      skip_ws();
      if (eof() || peek() == '|' || peek() == ')' || at_rule_start()) break;
      std::vector<Element> item = parse_item(depth);
      seq.insert(seq.end(), item.begin(), item.end());  // already counted
    }
    return seq;
  }

  std::vector<Element> parse_item(size_t depth) {
    const size_t start = pos_;
    std::vector<Element> item;
    const char c = peek();
    if (c == '"') {
      item = parse_literal();
    } else if (c == '[') {
      push(item, Element{Element::Kind::kChar, parse_class()}, start);
    } else if (c == '.') {
      ++pos_;
      push(item, Element{Element::Kind::kChar, class_of({{0, kMaxCodePoint}})}, start);
    } else if (c == '(') {
      if (depth + 1 > kMaxNesting) {
        fail(start, "groups nested more than " + std::to_string(kMaxNesting) + " deep");
      }
      ++pos_;
      auto alternatives = parse_alternatives(depth + 1);
      skip_ws();
      if (peek() != ')' || eof()) fail(start, "unclosed '(' (expected ')')");
      ++pos_;
      if (alternatives.size() == 1) {
        item = std::move(alternatives[0]);  // a plain sequence: no rule needed
      } else {
        const uint32_t r = new_rule(true, start);
        commit(r, std::move(alternatives), start);
        push(item, Element{Element::Kind::kRule, r}, start);
      }
    } else if (is_name_char(c)) {
      const std::string_view name = parse_name();
      push(item, Element{Element::Kind::kRule, user_rule(name, start)}, start);
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
      fail(start, "a repetition operator needs an item before it");
    } else if (c == ':' && s_.substr(pos_, 3) == "::=") {
      fail(start, "'::=' needs a rule name before it");
    } else {
      fail(start, "unexpected character (expected a literal, a class, '.', '(', or a rule name)");
    }
    parse_postfix(item);
    return item;
  }

  void parse_postfix(std::vector<Element>& item) {
    while (true) {
      const size_t save = pos_;
      skip_ws();
      const size_t at = pos_;
      const char c = peek();
      if (eof() || (c != '*' && c != '+' && c != '?' && c != '{')) {
        pos_ = save;
        return;
      }
      ++pos_;
      const Element x = atom(item, at);
      item.clear();
      if (c == '*') {
        push(item, Element{Element::Kind::kRule, star(x, at, "'*'")}, at);
      } else if (c == '+') {
        push(item, x, at);
        push(item, Element{Element::Kind::kRule, star(x, at, "'+'")}, at);
      } else if (c == '?') {
        push(item, Element{Element::Kind::kRule, chain(x, 1, at)}, at);
      } else {
        const auto [m, n] = parse_bounds(at);
        for (uint32_t i = 0; i < m; ++i) push(item, x, at);
        if (n == kUnbounded) {
          push(item, Element{Element::Kind::kRule, star(x, at, "'{m,}'")}, at);
        } else if (n > m) {
          push(item, Element{Element::Kind::kRule, chain(x, n - m, at)}, at);
        }
      }
    }
  }

  // After '{': m}, m,} or m,n} (spaces allowed). `at` is the '{'.
  std::pair<uint32_t, uint32_t> parse_bounds(size_t at) {
    auto number = [&]() -> uint32_t {
      skip_ws();
      if (eof() || peek() < '0' || peek() > '9') fail(pos_, "expected a number in the repetition bounds");
      uint64_t v = 0;
      while (!eof() && peek() >= '0' && peek() <= '9') {
        v = std::min<uint64_t>(v * 10 + static_cast<uint64_t>(peek() - '0'), 1u << 30);
        ++pos_;
      }
      if (v > kMaxRepetition) {
        fail(at, "repetition bound larger than " + std::to_string(kMaxRepetition));
      }
      return static_cast<uint32_t>(v);
    };
    const uint32_t m = number();
    uint32_t n = m;
    skip_ws();
    if (peek() == ',') {
      ++pos_;
      skip_ws();
      n = (peek() == '}') ? kUnbounded : number();
      skip_ws();
    }
    if (peek() != '}' || eof()) fail(at, "malformed repetition (expected {m}, {m,} or {m,n})");
    ++pos_;
    if (n < m) fail(at, "repetition {m,n} with n smaller than m");
    return {m, n};
  }

  // The item as one element: itself when it is one, else a generated rule of the sequence.
  Element atom(std::vector<Element>& item, size_t at) {
    if (item.size() == 1) {
      --element_count_;  // the caller pushes it again
      return item[0];
    }
    const uint32_t r = new_rule(true, at);
    std::vector<std::vector<Element>> alternatives;
    alternatives.push_back(std::move(item));
    commit(r, std::move(alternatives), at);
    return Element{Element::Kind::kRule, r};
  }

  // R ::= x R | (empty), shared by every repetition of x.
  uint32_t star(Element x, size_t at, const char* op) {
    repeats_.push_back(Repeat{x, at, op});
    auto it = star_.find(element_key(x));
    if (it != star_.end()) return it->second;
    const uint32_t r = new_rule(true, at);
    std::vector<std::vector<Element>> alternatives(2);
    push(alternatives[0], x, at);
    push(alternatives[0], Element{Element::Kind::kRule, r}, at);
    commit(r, std::move(alternatives), at);
    star_.emplace(element_key(x), r);
    return r;
  }

  // C_j: zero to j copies of x. C_1 ::= x | (empty); C_j ::= x C_{j-1} | (empty).
  uint32_t chain(Element x, uint32_t j, size_t at) {
    uint32_t prev = 0;
    for (uint32_t k = 1; k <= j; ++k) {
      const auto key = std::make_pair(element_key(x), k);
      auto it = chain_.find(key);
      if (it != chain_.end()) {
        prev = it->second;
        continue;
      }
      const uint32_t r = new_rule(true, at);
      std::vector<std::vector<Element>> alternatives(2);
      push(alternatives[0], x, at);
      if (k > 1) push(alternatives[0], Element{Element::Kind::kRule, prev}, at);
      commit(r, std::move(alternatives), at);
      chain_.emplace(key, r);
      prev = r;
    }
    return prev;
  }

  // A code point of the grammar text (strict UTF-8).
  char32_t text_char() {
    const Utf8Char ch = decode_utf8(s_, pos_, Utf8Rules::kStrict);
    if (ch.status != Utf8Status::kOk) fail(pos_, "invalid UTF-8 in the grammar text");
    pos_ += ch.length;
    return ch.code_point;
  }

  // At a backslash.
  char32_t parse_escape() {
    const size_t at = pos_;
    ++pos_;
    if (eof()) fail(at, "unterminated escape sequence");
    const char c = s_[pos_++];
    switch (c) {
      case '"':
      case '\'':
      case '\\':
      case '/':
      case '[':
      case ']':
      case '-':
      case '^':
        return static_cast<char32_t>(c);
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'x':
        return hex_escape(at, 2);
      case 'u':
        return hex_escape(at, 4);
      case 'U':
        return hex_escape(at, 8);
      default:
        fail(at,
             "unknown escape sequence (allowed: \\\" \\' \\\\ \\/ \\n \\r \\t \\[ \\] \\- \\^ \\xHH \\uHHHH "
             "\\UHHHHHHHH)");
    }
  }

  char32_t hex_escape(size_t at, int digits) {
    uint64_t v = 0;
    for (int i = 0; i < digits; ++i) {
      const int h = hex_value(peek());
      if (eof() || h < 0) {
        fail(at, "escape needs " + std::to_string(digits) + " hex digits");
      }
      v = v * 16 + static_cast<uint64_t>(h);
      ++pos_;
    }
    if (v > kMaxCodePoint) fail(at, "escape beyond U+10FFFF");
    if (v >= kSurrogateFirst && v <= kSurrogateLast) {
      fail(at, "escape names a surrogate code point (U+D800..U+DFFF), which is not a character");
    }
    return static_cast<char32_t>(v);
  }

  std::vector<Element> parse_literal() {
    const size_t start = pos_;
    ++pos_;
    std::vector<Element> seq;
    while (true) {
      if (eof() || peek() == '\n' || peek() == '\r') {
        fail(start, "unterminated literal (a literal ends on its line; write a newline as \\n)");
      }
      if (peek() == '"') {
        ++pos_;
        return seq;
      }
      const size_t at = pos_;
      const char32_t c = peek() == '\\' ? parse_escape() : text_char();
      push(seq, Element{Element::Kind::kChar, class_of({{c, c}})}, at);
    }
  }

  uint32_t parse_class() {
    const size_t start = pos_;
    ++pos_;
    bool negated = false;
    if (peek() == '^') {
      negated = true;
      ++pos_;
    }
    std::vector<Range> ranges;
    auto unterminated = [&] {
      if (eof() || peek() == '\n' || peek() == '\r')
        fail(start, "unterminated character class (expected ']')");
    };
    while (true) {
      unterminated();
      if (peek() == ']') {
        ++pos_;
        break;
      }
      const size_t range_start = pos_;
      const char32_t lo = peek() == '\\' ? parse_escape() : text_char();
      char32_t hi = lo;
      if (peek() == '-' && peek(1) != ']' && pos_ + 1 < s_.size()) {
        ++pos_;
        unterminated();
        hi = peek() == '\\' ? parse_escape() : text_char();
        if (hi < lo) fail(range_start, "character class range is reversed (its end comes before its start)");
      }
      ranges.emplace_back(lo, hi);
    }
    std::vector<Range> set = normalize(std::move(ranges));
    if (negated) set = normalize(complement(set));
    if (set.empty()) fail(start, "character class matches no character");
    return class_of(std::move(set));
  }

  // The index of the class of these (normalized, non-empty) ranges, shared by equal classes.
  uint32_t class_of(std::vector<Range> ranges) {
    ranges = normalize(std::move(ranges));
    auto it = classes_.find(ranges);
    if (it != classes_.end()) return it->second;
    CharClass cc;
    cc.ranges = ranges;
    for (const Range& r : ranges) {
      for (char32_t c = r.first; c <= r.second && c < 128; ++c) cc.ascii[c / 64] |= uint64_t{1} << (c % 64);
    }
    const uint32_t id = static_cast<uint32_t>(g_.classes.size());
    g_.classes.push_back(std::move(cc));
    classes_.emplace(std::move(ranges), id);
    return id;
  }

  // The first user rule (in text order) among those `bad` marks.
  std::optional<uint32_t> first_marked(const std::vector<uint8_t>& bad) const {
    std::optional<uint32_t> best;
    for (uint32_t r = 0; r < g_.rules.size(); ++r) {
      if (!bad[r] || g_.rules[r].generated) continue;
      if (!best || offset_[r] < offset_[*best]) best = r;
    }
    return best;
  }

  void check() {
    // References to rules never defined.
    std::vector<uint8_t> undefined(g_.rules.size(), 0);
    for (uint32_t r = 0; r < g_.rules.size(); ++r) undefined[r] = defined_[r] ? 0 : 1;
    if (auto r = first_marked(undefined)) fail(offset_[*r], "undefined rule " + quoted(g_.rules[*r].name));

    auto root = user_rules_.find("root");
    if (root == user_rules_.end()) fail(0, "no rule named 'root' (the start rule)");
    g_.root = root->second;

    // Every rule must be able to finish: otherwise the matcher would accept text that no sentence
    // starts with.
    const std::vector<uint8_t> productive = rules_where_some_alternative_holds(g_, true);
    // Each alternative of such a rule refers to another such rule, so they form cycles: name a rule
    // on one (the one that needs itself), not a rule that only refers to it.
    std::vector<std::vector<uint32_t>> refs(g_.rules.size());
    for (uint32_t r = 0; r < g_.rules.size(); ++r) {
      if (productive[r]) continue;
      for (uint32_t start : g_.rules[r].alternatives) {
        for (uint32_t p = start; g_.elements[p].kind != Element::Kind::kEnd; ++p) {
          const Element& e = g_.elements[p];
          if (e.kind == Element::Kind::kRule && !productive[e.index]) refs[r].push_back(e.index);
        }
      }
    }
    if (auto r = rule_on_a_cycle(refs)) {
      fail(offset_[*r], "rule " + quoted(g_.rules[*r].name) +
                            " cannot match any finite text (each alternative needs it again)");
    }
    for (uint32_t r = 0; r < g_.rules.size(); ++r) {  // not expected: such rules always form a cycle
      if (!productive[r])
        fail(offset_[r], "rule " + quoted(g_.rules[r].name) + " cannot match any finite text");
    }

    g_.nullable = rules_where_some_alternative_holds(g_, false);
    for (const Repeat& rep : repeats_) {
      if (rep.item.kind == Element::Kind::kRule && g_.nullable[rep.item.index]) {
        fail(rep.offset, std::string(rep.op) +
                             " repeats an item that can match the empty string (it could repeat forever)");
      }
    }
    check_left_recursion();
  }

  // Edges A -> B when B can be the first thing A expands to (after a prefix that can match the empty
  // string); a cycle is left recursion.
  void check_left_recursion() {
    std::vector<std::vector<uint32_t>> edges(g_.rules.size());
    for (uint32_t r = 0; r < g_.rules.size(); ++r) {
      for (uint32_t start : g_.rules[r].alternatives) {
        for (uint32_t p = start; g_.elements[p].kind == Element::Kind::kRule; ++p) {
          const uint32_t b = g_.elements[p].index;
          edges[r].push_back(b);
          if (!g_.nullable[b]) break;
        }
      }
    }
    if (auto r = rule_on_a_cycle(edges)) {
      fail(offset_[*r], "rule " + quoted(g_.rules[*r].name) +
                            " is left-recursive (it can reach itself again before matching a character)");
    }
  }

  // The first cycle a depth-first search meets in the graph (edges per rule), named by its first user
  // rule in text order (else any rule of it); nullopt when there is no cycle.
  std::optional<uint32_t> rule_on_a_cycle(const std::vector<std::vector<uint32_t>>& edges) const {
    const size_t n = edges.size();
    enum : uint8_t { kWhite, kGray, kBlack };
    std::vector<uint8_t> color(n, kWhite);
    std::vector<std::pair<uint32_t, size_t>> stack;  // rule, next edge
    for (uint32_t s = 0; s < n; ++s) {
      if (color[s] != kWhite) continue;
      stack.emplace_back(s, 0);
      color[s] = kGray;
      while (!stack.empty()) {
        auto& [r, next] = stack.back();
        if (next == edges[r].size()) {
          color[r] = kBlack;
          stack.pop_back();
          continue;
        }
        const uint32_t b = edges[r][next++];
        if (color[b] == kWhite) {
          color[b] = kGray;
          stack.emplace_back(b, 0);
        } else if (color[b] == kGray) {
          // The cycle is the part of the stack from b up.
          std::vector<uint8_t> on_cycle(n, 0);
          bool seen = false;
          for (const auto& frame : stack) {
            if (frame.first == b) seen = true;
            if (seen) on_cycle[frame.first] = 1;
          }
          std::optional<uint32_t> named = first_marked(on_cycle);
          return named ? *named : b;
        }
      }
    }
    return std::nullopt;
  }

  std::string_view s_;
  size_t pos_ = 0;
  Grammar g_;
  std::string_view current_rule_;
  std::unordered_map<std::string, uint32_t> user_rules_;
  std::vector<size_t>
      offset_;  // per rule: its definition (user), first reference (undefined user), or operator
  std::vector<uint8_t> defined_;  // per rule
  std::vector<Repeat> repeats_;   // unbounded repetitions, in text order
  std::unordered_map<uint64_t, uint32_t> star_;
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> chain_;
  std::map<std::vector<Range>, uint32_t> classes_;
  size_t element_count_ = 0;
};

}  // namespace

bool CharClass::contains(char32_t c) const {
  if (c < 128) return (ascii[c / 64] >> (c % 64)) & 1;
  auto it = std::upper_bound(ranges.begin(), ranges.end(), c,
                             [](char32_t v, const std::pair<char32_t, char32_t>& r) { return v < r.first; });
  return it != ranges.begin() && c <= std::prev(it)->second;
}

bool CharClass::intersects(char32_t lo, char32_t hi) const {
  // The first range that ends at or after lo.
  auto it = std::lower_bound(ranges.begin(), ranges.end(), lo,
                             [](const std::pair<char32_t, char32_t>& r, char32_t v) { return r.second < v; });
  return it != ranges.end() && it->first <= hi;
}

Grammar::~Grammar() {
  for (Rule& r : rules) {
    crypto::wipe(r.name.data(), r.name.size());
    crypto::wipe(r.alternatives.data(), r.alternatives.size() * sizeof(uint32_t));
  }
  for (CharClass& c : classes) {
    crypto::wipe(c.ranges.data(), c.ranges.size() * sizeof(c.ranges[0]));
    crypto::wipe(c.ascii.data(), sizeof(c.ascii));
  }
  crypto::wipe(elements.data(), elements.size() * sizeof(Element));
}

const Rule* Grammar::find_rule(std::string_view name) const {
  for (const Rule& r : rules) {
    if (!r.generated && r.name == name) return &r;
  }
  return nullptr;
}

std::shared_ptr<const Grammar> parse_grammar(std::string_view text) {
  return Parser(text).run();
}

}  // namespace a3s::power::grammar
