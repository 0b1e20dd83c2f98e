// libFuzzer target for the grammar layer (grammar/grammar.h, matcher.h, token_mask.h). The input is
// grammar text, a 0 byte, then output text (no 0 byte: the output is empty). Properties:
//   - parse_grammar accepts or refuses with Error(kInvalidRequest) whose message starts with
//     "grammar:" and stays short (it quotes at most a rule name, cut at 64 bytes);
//   - the output is fed in pieces of 1..5 bytes (a piece refused is skipped one byte at a time):
//     can_accept(piece) == accept(piece), and a second matcher fed the same pieces, which never
//     computes a mask, agrees;
//   - before each piece, allowed_tokens on a fixed vocabulary of 48 tokens (ASCII, JSON pieces, whole
//     and partial UTF-8 characters, invalid bytes) equals that second matcher's can_accept, token by
//     token; when the matcher is finished no token is allowed;
//   - can_end() implies no pending partial character, finished() implies can_end();
//   - the matcher refuses only with Error(kResourceExhausted) (a grammar too ambiguous).
// Any other exception, a crash, a sanitizer report, a hang or unbounded memory is a bug. Seeds:
// tests/fuzz/seeds/grammar/; dictionary: tests/fuzz/grammar.dict.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/error.h"
#include "grammar/grammar.h"
#include "grammar/matcher.h"
#include "grammar/token_mask.h"

namespace {

using a3s::power::Error;
namespace codes = a3s::power::codes;
using namespace a3s::power::grammar;

const std::vector<std::string>& vocabulary() {
  static const std::vector<std::string> v = {
      "a",        "b",        "x",    "z",        "0",        "1",           "9",    " ",
      "\n",       "\t",       "{",    "}",        "[",        "]",           "\"",   ":",
      ",",        ".",        "-",    "+",        "e",        "(",           ")",    "*",
      "\\",       "true",     "null", "{\"",      "\": ",     "\",",         "ab",   "aaaa",
      "12",       "\xC3\xA9", "\xC3", "\xA9",     "\xE4\xB8", "\xAD",        "\xE4", "\xF0\x9F\x98\x80",
      "\xF0\x9F", "\x98\x80", "\xFF", "\xC0\x80", "\xED\xA0", std::string(), "\x01", "a\xC3",
  };
  return v;
}

const TokenTrie& trie() {
  static const TokenTrie t(vocabulary());
  return t;
}

void feed(const std::shared_ptr<const Grammar>& g, std::string_view output) {
  Matcher m(g);
  Matcher shadow(g);
  std::vector<uint8_t> allowed;
  const std::vector<std::string>& vocab = vocabulary();
  size_t at = 0;
  for (int step = 0; at < output.size() && step < 48; ++step) {
    allowed_tokens(m, trie(), allowed);
    bool any = false;
    for (size_t id = 0; id < vocab.size(); ++id) {
      const bool expected = !vocab[id].empty() && shadow.can_accept(vocab[id]);
      if ((allowed[id] != 0) != expected) __builtin_trap();
      any = any || expected;
    }
    if (m.finished() && any) __builtin_trap();
    const size_t n =
        std::min<size_t>(output.size() - at, 1 + (at * 7 + static_cast<uint8_t>(output[at])) % 5);
    const std::string_view piece = output.substr(at, n);
    const bool can = m.can_accept(piece);
    const bool ok = m.accept(piece);
    if (can != ok || shadow.accept(piece) != ok) __builtin_trap();
    at += ok ? n : 1;
    if (m.can_end() && m.has_pending_bytes()) __builtin_trap();
    if (m.finished() && !m.can_end()) __builtin_trap();
    if (m.can_end() != shadow.can_end() || m.finished() != shadow.finished()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const size_t cut = all.find('\0');
  const std::string_view text = all.substr(0, cut);
  const std::string_view output = cut == std::string_view::npos ? std::string_view() : all.substr(cut + 1);
  std::shared_ptr<const Grammar> g;
  try {
    g = parse_grammar(text);
  } catch (const Error& e) {
    const std::string_view msg = e.what();
    if (e.kind() != codes::kInvalidRequest || msg.substr(0, 8) != "grammar:" || msg.size() > 320)
      __builtin_trap();
    return 0;
  }
  try {
    feed(g, output);
  } catch (const Error& e) {
    if (e.kind() != codes::kResourceExhausted || e.what()[0] == '\0') __builtin_trap();
  }
  return 0;
}
