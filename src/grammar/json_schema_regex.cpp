#include "grammar/json_schema_regex.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace a3s::power::grammar::schema {

namespace {

constexpr uint32_t kInfinite = UINT32_MAX;
constexpr uint32_t kMaxQuantifier = 1000;
constexpr size_t kMaxGroupNesting = 64;

// ---- Syntax tree ----

struct Node {
  enum class Kind { kSet, kSeq, kAlt, kRepeat };
  Kind kind = Kind::kSeq;
  CodeSet set;
  std::vector<Node> kids;
  uint32_t min = 1;
  uint32_t max = 1;

  static Node of_set(CodeSet s) {
    Node n;
    n.kind = Kind::kSet;
    n.set = std::move(s);
    return n;
  }
  static Node repeat(Node kid, uint32_t lo, uint32_t hi) {
    Node n;
    n.kind = Kind::kRepeat;
    n.min = lo;
    n.max = hi;
    n.kids.push_back(std::move(kid));
    return n;
  }
};

CodeSet digit_set() {
  return CodeSet::range('0', '9');
}

CodeSet word_set() {
  CodeSet s = CodeSet::range('a', 'z');
  s.add('A', 'Z');
  s.add('0', '9');
  s.add('_');
  return s;
}

// ECMAScript WhiteSpace and LineTerminator.
CodeSet space_set() {
  CodeSet s = CodeSet::range(0x09, 0x0D);
  for (char32_t c : {0x20u, 0xA0u, 0x1680u, 0x2028u, 0x2029u, 0x202Fu, 0x205Fu, 0x3000u, 0xFEFFu}) s.add(c);
  s.add(0x2000, 0x200A);
  return s;
}

CodeSet dot_set() {
  CodeSet s;
  for (char32_t c : {0x0Au, 0x0Du, 0x2028u, 0x2029u}) s.add(c);
  return s.complement();
}

bool is_syntax_char(char32_t c) {
  switch (c) {
    case '^':
    case '$':
    case '\\':
    case '.':
    case '*':
    case '+':
    case '?':
    case '(':
    case ')':
    case '[':
    case ']':
    case '{':
    case '}':
    case '|':
      return true;
    default:
      return false;
  }
}

int hex_value(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<int>(c - 'A' + 10);
  return -1;
}

// One top-level alternative: its tree and whether it is anchored at either end.
struct TopAlternative {
  Node node;
  bool anchored_start = false;
  bool anchored_end = false;
};

class Parser {
 public:
  explicit Parser(std::u32string text) : s_(std::move(text)) {}

  std::vector<TopAlternative> parse() {
    std::vector<TopAlternative> alts;
    for (;;) {
      alts.push_back(parse_top_alternative());
      if (at_end()) break;
      if (peek() == '|') {
        ++pos_;
        continue;
      }
      invalid("unmatched ')'");
    }
    return alts;
  }

 private:
  [[noreturn]] void invalid(const std::string& what) { throw RegexError{false, what, pos_}; }
  [[noreturn]] void unsupported(const std::string& what) { throw RegexError{true, what, pos_}; }

  bool at_end() const { return pos_ >= s_.size(); }
  char32_t peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : 0; }
  bool has(size_t ahead) const { return pos_ + ahead < s_.size(); }

  TopAlternative parse_top_alternative() {
    TopAlternative alt;
    alt.node.kind = Node::Kind::kSeq;
    if (!at_end() && peek() == '^') {
      ++pos_;
      alt.anchored_start = true;
    }
    while (!at_end() && peek() != '|' && peek() != ')') {
      if (peek() == '$') {
        if (!has(1) || peek(1) == '|') {
          ++pos_;
          alt.anchored_end = true;
          break;
        }
        unsupported("'$' before the end of the pattern");
      }
      alt.node.kids.push_back(parse_term());
    }
    return alt;
  }

  Node parse_disjunction() {
    Node alt;
    alt.kind = Node::Kind::kAlt;
    for (;;) {
      Node seq;
      seq.kind = Node::Kind::kSeq;
      while (!at_end() && peek() != '|' && peek() != ')') seq.kids.push_back(parse_term());
      alt.kids.push_back(std::move(seq));
      if (!at_end() && peek() == '|') {
        ++pos_;
        continue;
      }
      break;
    }
    if (alt.kids.size() == 1) return std::move(alt.kids.front());
    return alt;
  }

  Node parse_term() {
    Node atom = parse_atom();
    if (at_end()) return atom;
    uint32_t lo = 1;
    uint32_t hi = 1;
    const char32_t c = peek();
    if (c == '*') {
      lo = 0;
      hi = kInfinite;
      ++pos_;
    } else if (c == '+') {
      lo = 1;
      hi = kInfinite;
      ++pos_;
    } else if (c == '?') {
      lo = 0;
      hi = 1;
      ++pos_;
    } else if (c == '{') {
      ++pos_;
      lo = parse_count();
      hi = lo;
      if (!at_end() && peek() == ',') {
        ++pos_;
        hi = (!at_end() && peek() == '}') ? kInfinite : parse_count();
      }
      if (at_end() || peek() != '}') invalid("malformed quantifier");
      ++pos_;
      if (hi != kInfinite && lo > hi) invalid("quantifier bounds out of order");
    } else {
      return atom;
    }
    if (!at_end() && peek() == '?') ++pos_;  // a lazy quantifier matches the same strings
    if (!at_end() && (peek() == '*' || peek() == '+' || peek() == '?' || peek() == '{'))
      invalid("nothing to repeat");
    return Node::repeat(std::move(atom), lo, hi);
  }

  uint32_t parse_count() {
    if (at_end() || peek() < '0' || peek() > '9') invalid("malformed quantifier");
    uint64_t v = 0;
    while (!at_end() && peek() >= '0' && peek() <= '9') {
      v = v * 10 + (peek() - '0');
      if (v > kMaxQuantifier) unsupported("a repetition count above 1000");
      ++pos_;
    }
    return static_cast<uint32_t>(v);
  }

  Node parse_atom() {
    const char32_t c = peek();
    switch (c) {
      case '(': {
        if (++depth_ > kMaxGroupNesting) unsupported("groups nested more than 64 deep");
        ++pos_;
        if (peek() == '?') {
          if (peek(1) == ':') {
            pos_ += 2;
          } else if (peek(1) == '=' || peek(1) == '!') {
            unsupported("a lookahead");
          } else if (peek(1) == '<' && (peek(2) == '=' || peek(2) == '!')) {
            unsupported("a lookbehind");
          } else if (peek(1) == '<') {
            pos_ += 2;  // a named group: the name does not change what matches
            size_t n = 0;
            while (!at_end() && peek() != '>') {
              const char32_t k = peek();
              const bool ok = (k >= 'a' && k <= 'z') || (k >= 'A' && k <= 'Z') || k == '_' || k == '$' ||
                              (n > 0 && k >= '0' && k <= '9');
              if (!ok) invalid("malformed group name");
              ++pos_;
              ++n;
            }
            if (at_end() || n == 0) invalid("malformed group name");
            ++pos_;
          } else {
            invalid("malformed group");
          }
        }
        Node inner = parse_disjunction();
        if (at_end() || peek() != ')') invalid("unterminated group");
        ++pos_;
        --depth_;
        return inner;
      }
      case '[':
        ++pos_;
        return Node::of_set(parse_class());
      case '.':
        ++pos_;
        return Node::of_set(dot_set());
      case '\\':
        ++pos_;
        return parse_atom_escape();
      case '^':
        unsupported("'^' after the start of the pattern");
      case '$':
        unsupported("'$' inside a group");
      case '*':
      case '+':
      case '?':
      case '{':
        invalid("nothing to repeat");
      case ')':
      case ']':
      case '}':
        invalid("unbalanced bracket");
      default:
        ++pos_;
        return Node::of_set(CodeSet::single(c));
    }
  }

  // After a backslash outside a class.
  Node parse_atom_escape() {
    if (at_end()) invalid("a trailing backslash");
    const char32_t c = peek();
    if (c == 'b' || c == 'B') unsupported("a word boundary assertion");
    if (c >= '1' && c <= '9') unsupported("a backreference");
    if (c == 'k') unsupported("a named backreference");
    if (c == '-') invalid("an escape that is not valid with the u flag");
    if (auto set = class_escape(c)) {
      ++pos_;
      return Node::of_set(*set);
    }
    return Node::of_set(CodeSet::single(character_escape()));
  }

  std::optional<CodeSet> class_escape(char32_t c) {
    switch (c) {
      case 'd':
        return digit_set();
      case 'D':
        return digit_set().complement();
      case 'w':
        return word_set();
      case 'W':
        return word_set().complement();
      case 's':
        return space_set();
      case 'S':
        return space_set().complement();
      case 'p':
      case 'P':
        unsupported("a Unicode property escape");
      default:
        return std::nullopt;
    }
  }

  // A CharacterEscape at pos_ (after the backslash); returns its code point.
  char32_t character_escape() {
    const char32_t c = peek();
    ++pos_;
    switch (c) {
      case 'f':
        return 0x0C;
      case 'n':
        return 0x0A;
      case 'r':
        return 0x0D;
      case 't':
        return 0x09;
      case 'v':
        return 0x0B;
      case '0':
        if (!at_end() && peek() >= '0' && peek() <= '9') invalid("an octal escape");
        return 0;
      case 'c': {
        const char32_t k = peek();
        if (!((k >= 'a' && k <= 'z') || (k >= 'A' && k <= 'Z'))) invalid("malformed control escape");
        ++pos_;
        return k % 32;
      }
      case 'x': {
        const int a = hex_value(peek());
        const int b = hex_value(peek(1));
        if (a < 0 || b < 0) invalid("malformed \\x escape");
        pos_ += 2;
        return static_cast<char32_t>(a * 16 + b);
      }
      case 'u': {
        char32_t v = unicode_escape_body();
        if (v >= 0xD800 && v <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
          const size_t save = pos_;
          pos_ += 2;
          const char32_t low = unicode_escape_body();
          if (low >= 0xDC00 && low <= 0xDFFF) return 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
          pos_ = save;
        }
        if (v >= 0xD800 && v <= 0xDFFF) unsupported("a lone surrogate escape");
        return v;
      }
      default:
        if (is_syntax_char(c) || c == '/') return c;
        --pos_;
        invalid("an escape that is not valid with the u flag");
    }
  }

  // After "\u": XXXX or {X...}.
  char32_t unicode_escape_body() {
    if (peek() == '{') {
      ++pos_;
      uint32_t v = 0;
      size_t n = 0;
      while (!at_end() && peek() != '}') {
        const int h = hex_value(peek());
        if (h < 0) invalid("malformed \\u escape");
        v = v * 16 + static_cast<uint32_t>(h);
        if (v > kMaxCodePoint) invalid("a code point above U+10FFFF");
        ++pos_;
        ++n;
      }
      if (at_end() || n == 0) invalid("malformed \\u escape");
      ++pos_;
      return v;
    }
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = hex_value(peek());
      if (h < 0) invalid("malformed \\u escape");
      v = v * 16 + static_cast<uint32_t>(h);
      ++pos_;
    }
    return v;
  }

  // After '['.
  CodeSet parse_class() {
    bool negate = false;
    if (!at_end() && peek() == '^') {
      negate = true;
      ++pos_;
    }
    CodeSet set;
    for (;;) {
      if (at_end()) invalid("unterminated character class");
      if (peek() == ']') {
        ++pos_;
        break;
      }
      auto [a_set, a] = class_atom();
      if (peek() == '-' && has(1) && peek(1) != ']') {
        ++pos_;
        auto [b_set, b] = class_atom();
        if (a_set || b_set) invalid("a class escape as a range bound");
        if (a > b) invalid("a character range out of order");
        set.add(a, b);
        continue;
      }
      if (a_set) {
        set.add(*a_set);
      } else {
        set.add(a);
      }
    }
    return negate ? set.complement() : set;
  }

  // One class member: a set (\d, \w, \s and their complements) or a code point.
  std::pair<std::optional<CodeSet>, char32_t> class_atom() {
    if (at_end()) invalid("unterminated character class");
    const char32_t c = peek();
    if (c != '\\') {
      ++pos_;
      return {std::nullopt, c};
    }
    ++pos_;
    if (at_end()) invalid("a trailing backslash");
    const char32_t e = peek();
    if (e == 'b') {
      ++pos_;
      return {std::nullopt, 0x08};
    }
    if (e == '-') {
      ++pos_;
      return {std::nullopt, '-'};
    }
    if (e >= '1' && e <= '9') invalid("a backreference inside a class");
    if (auto set = class_escape(e)) {
      ++pos_;
      return {set, 0};
    }
    return {std::nullopt, character_escape()};
  }

  std::u32string s_;
  size_t pos_ = 0;
  size_t depth_ = 0;  // groups open
};

// ---- NFA ----

class Nfa {
 public:
  struct State {
    std::vector<std::pair<CodeSet, int>> edges;
    std::vector<int> eps;
  };
  struct Fragment {
    int start;
    int end;
  };

  explicit Nfa(size_t max_states) : max_(max_states) {}

  int add() {
    if (states_.size() >= max_) throw AutomatonTooLarge{};
    states_.emplace_back();
    return static_cast<int>(states_.size() - 1);
  }
  void eps(int from, int to) { states_[from].eps.push_back(to); }

  Fragment build(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kSet: {
        const int s = add();
        const int e = add();
        if (!n.set.empty()) states_[s].edges.emplace_back(n.set, e);
        return {s, e};
      }
      case Node::Kind::kSeq: {
        const int s = add();
        int cur = s;
        for (const Node& k : n.kids) {
          const Fragment f = build(k);
          eps(cur, f.start);
          cur = f.end;
        }
        return {s, cur};
      }
      case Node::Kind::kAlt: {
        const int s = add();
        const int e = add();
        for (const Node& k : n.kids) {
          const Fragment f = build(k);
          eps(s, f.start);
          eps(f.end, e);
        }
        return {s, e};
      }
      case Node::Kind::kRepeat: {
        const int s = add();
        int cur = s;
        for (uint32_t i = 0; i < n.min; ++i) {
          const Fragment f = build(n.kids[0]);
          eps(cur, f.start);
          cur = f.end;
        }
        if (n.max == kInfinite) {
          const int hub = add();
          const Fragment f = build(n.kids[0]);
          eps(cur, hub);
          eps(hub, f.start);
          eps(f.end, hub);
          return {s, hub};
        }
        const int e = add();
        for (uint32_t i = n.min; i < n.max; ++i) {
          eps(cur, e);
          const Fragment f = build(n.kids[0]);
          eps(cur, f.start);
          cur = f.end;
        }
        eps(cur, e);
        return {s, e};
      }
    }
    return {add(), add()};
  }

  std::vector<int> closure(std::vector<int> set) const {
    std::vector<char> seen(states_.size(), 0);
    std::vector<int> stack = set;
    for (int s : set) seen[s] = 1;
    while (!stack.empty()) {
      const int s = stack.back();
      stack.pop_back();
      for (int t : states_[s].eps) {
        if (!seen[t]) {
          seen[t] = 1;
          set.push_back(t);
          stack.push_back(t);
        }
      }
    }
    std::sort(set.begin(), set.end());
    return set;
  }

  Dfa determinize(int start, int accept, size_t max_states) const {
    std::map<std::vector<int>, int> ids;
    std::deque<std::vector<int>> queue;
    Dfa out;
    auto id_of = [&](std::vector<int> set) {
      auto [it, inserted] = ids.emplace(set, static_cast<int>(out.states.size()));
      if (inserted) {
        if (out.states.size() >= max_states) throw AutomatonTooLarge{};
        out.states.emplace_back();
        out.states.back().accepting = std::binary_search(set.begin(), set.end(), accept);
        queue.push_back(std::move(set));
      }
      return it->second;
    };
    id_of(closure({start}));
    while (!queue.empty()) {
      const std::vector<int> set = std::move(queue.front());
      queue.pop_front();
      const int self = ids.at(set);
      std::vector<char32_t> cuts;
      for (int s : set) {
        for (const auto& [cs, t] : states_[s].edges) {
          for (const CodeSet::Range& r : cs.ranges()) {
            cuts.push_back(r.lo);
            cuts.push_back(r.hi + 1);
          }
        }
      }
      if (cuts.empty()) continue;
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      const size_t m = cuts.size() - 1;
      std::vector<std::vector<int>> targets(m);
      for (int s : set) {
        for (const auto& [cs, t] : states_[s].edges) {
          for (const CodeSet::Range& r : cs.ranges()) {
            size_t k = static_cast<size_t>(std::lower_bound(cuts.begin(), cuts.end(), r.lo) - cuts.begin());
            for (; k < m && cuts[k] <= r.hi; ++k) targets[k].push_back(t);
          }
        }
      }
      std::map<int, CodeSet> by_target;
      for (size_t k = 0; k < m; ++k) {
        if (targets[k].empty()) continue;
        std::sort(targets[k].begin(), targets[k].end());
        targets[k].erase(std::unique(targets[k].begin(), targets[k].end()), targets[k].end());
        const int t = id_of(closure(std::move(targets[k])));
        by_target[t].add(cuts[k], cuts[k + 1] - 1);
      }
      for (auto& [t, cs] : by_target) out.states[self].edges.push_back({std::move(cs), t});
    }
    return out;
  }

 private:
  std::vector<State> states_;
  size_t max_;
};

Dfa compile_tree(const Node& root, size_t max_states) {
  Nfa nfa(max_states * 4);
  const Nfa::Fragment f = nfa.build(root);
  return minimize(nfa.determinize(f.start, f.end, max_states));
}

Dfa compile_pattern(std::string_view pattern_utf8, size_t max_states) {
  auto text = decode_utf8_text(pattern_utf8);
  if (!text) throw RegexError{false, "the pattern is not valid UTF-8", 0};
  Parser parser(std::move(*text));
  std::vector<TopAlternative> alts = parser.parse();
  Node any = Node::repeat(Node::of_set(CodeSet::universe()), 0, kInfinite);
  Node root;
  root.kind = Node::Kind::kAlt;
  for (TopAlternative& alt : alts) {
    Node seq;
    seq.kind = Node::Kind::kSeq;
    if (!alt.anchored_start) seq.kids.push_back(any);
    seq.kids.push_back(std::move(alt.node));
    if (!alt.anchored_end) seq.kids.push_back(any);
    root.kids.push_back(std::move(seq));
  }
  try {
    return compile_tree(root, max_states);
  } catch (const AutomatonTooLarge&) {
    throw RegexError{true, "an expression whose automaton is over the size limit", 0};
  }
}

// The formats, written in the subset above (each anchored at both ends).
constexpr std::string_view kDate =
    "(?:\\d{4}-(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])"
    "|\\d{4}-(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)"
    "|\\d{4}-02-(?:0[1-9]|1\\d|2[0-8])"
    "|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)";
constexpr std::string_view kTime =
    "(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)";
constexpr std::string_view kUuid =
    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
constexpr std::string_view kEmail =
    "[A-Za-z0-9_%+-]+(?:\\.[A-Za-z0-9_%+-]+)*@"
    "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+";
constexpr std::string_view kIpv4Part = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";

std::string anchored(std::string_view body) {
  return "^" + std::string(body) + "$";
}

}  // namespace

Dfa pattern_dfa(std::string_view pattern_utf8, size_t max_states) {
  return compile_pattern(pattern_utf8, max_states);
}

std::optional<Dfa> format_dfa(std::string_view name) {
  static const std::map<std::string, Dfa, std::less<>> formats = [] {
    constexpr size_t kBudget = 20000;
    std::map<std::string, Dfa, std::less<>> m;
    m.emplace("date", compile_pattern(anchored(kDate), kBudget));
    m.emplace("time", compile_pattern(anchored(kTime), kBudget));
    m.emplace("date-time", compile_pattern(anchored(std::string(kDate) + "T" + std::string(kTime)), kBudget));
    m.emplace("uuid", compile_pattern(anchored(kUuid), kBudget));
    m.emplace("email", compile_pattern(anchored(kEmail), kBudget));
    const std::string part(kIpv4Part);
    m.emplace("ipv4", compile_pattern(anchored("(?:" + part + "\\.){3}" + part), kBudget));
    return m;
  }();
  auto it = formats.find(name);
  if (it == formats.end()) return std::nullopt;
  return it->second;
}

}  // namespace a3s::power::grammar::schema
