#include "grammar/json_schema_rules.h"

#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "a3s/power/error.h"
#include "base/utf8.h"
#include "grammar/compose.h"

namespace a3s::power::grammar::schema {

namespace {

// One class member: printable ASCII as itself (except the class syntax characters), other ASCII as
// \xHH, the rest of the BMP as \uHHHH, code points above it as their UTF-8 (no escape reaches them).
void append_class_char(std::string& out, char32_t c) {
  char buf[12];
  if (c >= 0x20 && c < 0x7F && c != '\\' && c != ']' && c != '[' && c != '^' && c != '-') {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x80) {
    std::snprintf(buf, sizeof buf, "\\x%02X", static_cast<unsigned>(c));
    out += buf;
  } else if (c < 0x10000) {
    std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c));
    out += buf;
  } else {
    append_utf8(out, c);
  }
}

std::string ranges_text(const CodeSet& set) {
  std::string out;
  for (const CodeSet::Range& r : set.ranges()) {
    append_class_char(out, r.lo);
    if (r.hi == r.lo) continue;
    if (r.hi != r.lo + 1) out.push_back('-');
    append_class_char(out, r.hi);
  }
  return out;
}

std::string suffix(uint32_t min, uint32_t max) {
  if (min == 1 && max == 1) return "";
  if (min == 0 && max == 1) return "?";
  if (min == 0 && max == kUnbounded) return "*";
  if (min == 1 && max == kUnbounded) return "+";
  if (max == kUnbounded) return "{" + std::to_string(min) + ",}";
  if (min == max) return "{" + std::to_string(min) + "}";
  return "{" + std::to_string(min) + "," + std::to_string(max) + "}";
}

}  // namespace

std::string class_text(const CodeSet& set) {
  const std::string positive = ranges_text(set);
  const std::string negative = ranges_text(set.complement());
  if (negative.size() < positive.size() && !negative.empty()) return "[^" + negative + "]";
  return "[" + positive + "]";
}


Item Item::lit(std::string text) {
  Item it;
  it.kind = Kind::kLiteral;
  it.literal = std::move(text);
  return it;
}

Item Item::chars(CodeSet set) {
  Item it;
  it.kind = Kind::kSet;
  it.set = std::move(set);
  return it;
}

Item Item::ref(int rule) {
  Item it;
  it.kind = Kind::kRule;
  it.rule = rule;
  return it;
}

Item& Item::times(uint32_t lo, uint32_t hi) {
  min = lo;
  max = hi;
  return *this;
}

int Rules::add(std::string_view name, bool fixed) {
  rules_.push_back(Rule{std::string(name), fixed, {}});
  return static_cast<int>(rules_.size() - 1);
}

void Rules::add_alternative(int rule, Sequence seq) {
  rules_[rule].alts.push_back(std::move(seq));
}

int Rules::rule_of(std::string_view prefix, Sequence seq) {
  const int r = add(prefix);
  add_alternative(r, std::move(seq));
  return r;
}

Item Rules::block_of(const Item& x) {
  Item b = x;
  b.times(kMaxRepetition, kMaxRepetition);
  return Item::ref(rule_of("block", {b}));
}

Sequence Rules::exactly(const Item& x, uint64_t count) {
  if (count == 0) return {};
  if (count <= kMaxRepetition) {
    Item y = x;
    y.times(static_cast<uint32_t>(count), static_cast<uint32_t>(count));
    return {y};
  }
  Sequence out = exactly(block_of(x), count / kMaxRepetition);
  if (count % kMaxRepetition != 0) {
    Item y = x;
    const auto rest = static_cast<uint32_t>(count % kMaxRepetition);
    y.times(rest, rest);
    out.push_back(y);
  }
  return out;
}

Sequence Rules::up_to(const Item& x, uint64_t count) {
  if (count == 0) return {};
  if (count <= kMaxRepetition) {
    Item y = x;
    y.times(0, static_cast<uint32_t>(count));
    return {y};
  }
  // 0..count = (fewer than q full blocks, then 0..999) | (q blocks, then 0..r).
  const uint64_t q = count / kMaxRepetition;
  const auto r = static_cast<uint32_t>(count % kMaxRepetition);
  const Item block = block_of(x);
  Sequence first = up_to(block, q - 1);
  Item tail = x;
  tail.times(0, kMaxRepetition - 1);
  first.push_back(tail);
  Sequence second = exactly(block, q);
  if (r != 0) {
    Item rest = x;
    rest.times(0, r);
    second.push_back(rest);
  }
  const int u = add("upto");
  add_alternative(u, std::move(first));
  add_alternative(u, std::move(second));
  return {Item::ref(u)};
}

Sequence Rules::repeat(const Item& x0, uint64_t min, std::optional<uint64_t> max) {
  if (max && *max < min) return {Item::ref(add("never"))};
  Item x = x0;
  if (x.min != 1 || x.max != 1) x = Item::ref(rule_of("group", {x0}));
  if (min <= kMaxRepetition && (!max || *max <= kMaxRepetition)) {
    if (max && *max == 0) return {};
    x.times(static_cast<uint32_t>(min), max ? static_cast<uint32_t>(*max) : kUnbounded);
    return {x};
  }
  Sequence out = exactly(x, min);
  if (!max) {
    Item star = x;
    star.times(0, kUnbounded);
    out.push_back(star);
  } else {
    for (Item& it : up_to(x, *max - min)) out.push_back(std::move(it));
  }
  return out;
}

std::string Rules::render(int root, size_t max_bytes) const {
  const size_t n = rules_.size();
  auto matchable = [](const Item& it, const std::vector<char>& productive) {
    switch (it.kind) {
      case Item::Kind::kLiteral:
        return !it.literal.empty();
      case Item::Kind::kSet:
        return !it.set.empty();
      case Item::Kind::kRule:
        return productive[it.rule] != 0;
    }
    return false;
  };
  // 1. The rules that can finish.
  std::vector<char> productive(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < n; ++r) {
      if (productive[r]) continue;
      for (const Sequence& seq : rules_[r].alts) {
        bool ok = true;
        for (const Item& it : seq) {
          if (it.min > 0 && !matchable(it, productive)) {
            ok = false;
            break;
          }
        }
        if (ok) {
          productive[r] = 1;
          changed = true;
          break;
        }
      }
    }
  }
  if (!productive[root]) throw Error(codes::kInvalidRequest, "the JSON Schema accepts no JSON value");
  // 2. Without what cannot match: alternatives that need it go, optional items that are it go.
  std::vector<std::vector<Sequence>> alts(n);
  for (size_t r = 0; r < n; ++r) {
    if (!productive[r]) continue;
    for (const Sequence& seq : rules_[r].alts) {
      Sequence kept;
      bool ok = true;
      for (const Item& it : seq) {
        if (it.max == 0) continue;
        if (!matchable(it, productive)) {
          if (it.min == 0) continue;
          ok = false;
          break;
        }
        kept.push_back(it);
      }
      if (ok) alts[r].push_back(std::move(kept));
    }
  }
  // 3. Rules that match only the empty string disappear from the sequences that use them.
  std::vector<char> empty_only(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < n; ++r) {
      if (empty_only[r] || alts[r].empty()) continue;
      bool all_empty = true;
      for (const Sequence& seq : alts[r]) all_empty = all_empty && seq.empty();
      if (all_empty) {
        empty_only[r] = 1;
        changed = true;
      }
    }
    if (!changed) break;
    for (size_t r = 0; r < n; ++r) {
      for (Sequence& seq : alts[r]) {
        std::erase_if(seq,
                      [&](const Item& it) { return it.kind == Item::Kind::kRule && empty_only[it.rule]; });
      }
    }
  }
  if (empty_only[root]) throw Error(codes::kInvalidRequest, "the JSON Schema accepts no JSON value");
  // An alias (a rule that is one reference to another) is replaced by its target; when the root is
  // one, it takes the target's alternatives.
  {
    auto single_ref = [&](int r) {
      if (alts[r].size() == 1 && alts[r][0].size() == 1) {
        const Item& it = alts[r][0][0];
        if (it.kind == Item::Kind::kRule && it.min == 1 && it.max == 1 && it.rule != r) return it.rule;
      }
      return -1;
    };
    std::vector<int> target(n);
    for (size_t r = 0; r < n; ++r) {
      const int t = static_cast<int>(r) == root ? -1 : single_ref(static_cast<int>(r));
      target[r] = t >= 0 ? t : static_cast<int>(r);
    }
    auto find = [&](int r) {
      for (size_t steps = 0; target[r] != r && steps < n; ++steps) r = target[r];
      return r;
    };
    if (const int t = single_ref(root); t >= 0) {
      const int x = find(t);
      if (x != root) {
        alts[root] = alts[x];
        target[x] = root;
      }
    }
    for (size_t r = 0; r < n; ++r) {
      for (Sequence& seq : alts[r]) {
        for (Item& it : seq) {
          if (it.kind == Item::Kind::kRule) it.rule = find(it.rule);
        }
      }
    }
  }
  // 4. The rules the root reaches.
  std::vector<char> reached(n, 0);
  std::vector<int> order{root};
  reached[root] = 1;
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Sequence& seq : alts[order[i]]) {
      for (const Item& it : seq) {
        if (it.kind == Item::Kind::kRule && !reached[it.rule]) {
          reached[it.rule] = 1;
          order.push_back(it.rule);
        }
      }
    }
  }
  // 5. No cycle of rules may consume nothing (left recursion), and no repeated item may match the
  // empty string.
  std::vector<char> nullable(n, 0);
  auto item_nullable = [&](const Item& it) {
    return it.min == 0 || (it.kind == Item::Kind::kRule && nullable[it.rule]);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int r : order) {
      if (nullable[r]) continue;
      for (const Sequence& seq : alts[r]) {
        bool all = true;
        for (const Item& it : seq) all = all && item_nullable(it);
        if (all) {
          nullable[r] = 1;
          changed = true;
          break;
        }
      }
    }
  }
  std::vector<std::vector<int>> leading(n);
  for (int r : order) {
    for (const Sequence& seq : alts[r]) {
      for (const Item& it : seq) {
        if (it.kind == Item::Kind::kRule) {
          leading[r].push_back(it.rule);
          if (it.max > 1 && nullable[it.rule]) {
            throw Error(codes::kInternal, "JSON Schema compiler: a repeated rule matches the empty string");
          }
        }
        if (!item_nullable(it)) break;
      }
    }
  }
  std::vector<char> color(n, 0);  // 0 new, 1 on the path, 2 done
  for (int start : order) {
    if (color[start]) continue;
    std::vector<std::pair<int, size_t>> stack{{start, 0}};
    color[start] = 1;
    while (!stack.empty()) {
      auto& [r, next] = stack.back();
      if (next < leading[r].size()) {
        const int t = leading[r][next++];
        if (color[t] == 1) {
          throw Error(codes::kInvalidRequest,
                      "the JSON Schema refers to itself through $ref without an enclosing object or array");
        }
        if (color[t] == 0) {
          color[t] = 1;
          stack.emplace_back(t, 0);
        }
      } else {
        color[r] = 2;
        stack.pop_back();
      }
    }
  }
  // 6. What the grammar parser will make of it (grammar.h): every rule written, plus the rules it
  // generates for repetitions — one per repeated multi-character literal, one `*` rule per repeated
  // element, and a chain of k optional rules per element repeated up to k extra times — and the
  // elements of all of them. Over its limits, refuse here with a message about the schema.
  {
    size_t rules = order.size();
    size_t elements = 0;
    std::map<std::pair<int, CodeSet>, uint32_t> chains;  // element -> longest chain so far
    std::set<std::pair<int, CodeSet>> stars;
    int fresh = -1;  // keys of the rules made for multi-character literals
    for (int r : order) {
      for (const Sequence& seq : alts[r]) {
        ++elements;  // the end of the alternative
        for (const Item& it : seq) {
          size_t length = 1;
          std::pair<int, CodeSet> key{-2, {}};
          if (it.kind == Item::Kind::kLiteral) {
            const auto cps = decode_utf8_text(it.literal);
            length = cps ? cps->size() : it.literal.size();
            if (length == 1) key.second = CodeSet::single((*cps)[0]);
          } else if (it.kind == Item::Kind::kSet) {
            key.second = it.set;
          } else {
            key.first = it.rule;
          }
          if (it.min == 1 && it.max == 1) {
            elements += length;
            continue;
          }
          if (length > 1) {  // the literal becomes a rule of its own
            ++rules;
            elements += length + 1;
            key = {fresh--, {}};
          }
          elements += it.min + (it.max == it.min ? 0 : 1);
          if (it.max == kUnbounded) {
            if (stars.insert(key).second) {
              ++rules;
              elements += 4;
            }
          } else if (it.max > it.min) {
            uint32_t& have = chains[key];
            const uint32_t want = it.max - it.min;
            if (want > have) {
              rules += want - have;
              elements += 4 * static_cast<size_t>(want - have);
              have = want;
            }
          }
        }
      }
    }
    if (rules > kMaxRules || elements > kMaxElements) {
      throw Error(codes::kInvalidRequest,
                  "the grammar compiled from the JSON Schema needs more than " +
                      (rules > kMaxRules ? std::to_string(kMaxRules) + " rules"
                                         : std::to_string(kMaxElements) + " elements") +
                      " (a smaller schema, fewer or shorter bounds)");
    }
  }
  // 7. The text.
  std::vector<std::string> names(n);
  size_t counter = 0;
  for (int r : order) {
    if (r == root) {
      names[r] = "root";
    } else if (rules_[r].fixed) {
      names[r] = rules_[r].name;
    } else {
      names[r] = rules_[r].name + "-" + std::to_string(++counter);
    }
  }
  auto too_large = [&] {
    return Error(codes::kInvalidRequest, "the grammar compiled from the JSON Schema is larger than " +
                                             std::to_string(max_bytes / 1024) + " KiB");
  };
  std::string out;
  for (int r : order) {
    std::string line = names[r] + " ::= ";
    bool first = true;
    for (const Sequence& seq : alts[r]) {
      if (!first) line += " | ";
      first = false;
      if (seq.empty()) {
        line += "\"\"";  // the empty alternative
        continue;
      }
      bool first_item = true;
      for (const Item& it : seq) {
        if (!first_item) line.push_back(' ');
        first_item = false;
        switch (it.kind) {
          case Item::Kind::kLiteral:
            line += grammar_literal(it.literal);
            break;
          case Item::Kind::kSet:
            if (it.set.ranges().size() == 1 && it.set.ranges()[0].lo == it.set.ranges()[0].hi) {
              std::string one;
              append_utf8(one, it.set.ranges()[0].lo);
              line += grammar_literal(one);
            } else {
              line += class_text(it.set);
            }
            break;
          case Item::Kind::kRule:
            line += names[it.rule];
            break;
        }
        line += suffix(it.min, it.max);
      }
      if (out.size() + line.size() > max_bytes) throw too_large();
    }
    line.push_back('\n');
    out += line;
    if (out.size() > max_bytes) throw too_large();
  }
  return out;
}

}  // namespace a3s::power::grammar::schema
