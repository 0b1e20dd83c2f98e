#include "tokenizer/quoted_text.h"

namespace a3s::power::tok {

std::string quote_at(std::string_view text, std::span<const size_t> starts) {
  std::string out;
  out.reserve(text.size() + kQuoteMark.size() * (starts.size() + 1));
  size_t next = 0;
  for (size_t i = 0; i < text.size();) {
    if (next < starts.size() && starts[next] == i) {
      out.append(kQuoteMark);
      while (next < starts.size() && starts[next] <= i) ++next;
    }
    if (text.substr(i).starts_with(kQuoteMark)) {
      out.append(kQuoteMark);
      out.append(kQuoteMark);
      i += kQuoteMark.size();
      continue;
    }
    out.push_back(text[i]);
    ++i;
  }
  return out;
}

std::vector<size_t> unquote_in_place(std::string& text) {
  std::vector<size_t> quoted;
  size_t w = 0;
  const size_t n = text.size();
  const size_t m = kQuoteMark.size();
  for (size_t r = 0; r < n;) {
    if (std::string_view(text).substr(r, m) == kQuoteMark) {
      if (std::string_view(text).substr(r + m, m) == kQuoteMark) {
        for (size_t k = 0; k < m; ++k) text[w++] = text[r + k];  // a literal U+FDD0
        r += 2 * m;
        continue;
      }
      r += m;
      if (r < n && (quoted.empty() || quoted.back() != w)) quoted.push_back(w);
      continue;
    }
    text[w++] = text[r++];
  }
  // The bytes past the new end held text: zero them before shrinking.
  for (size_t k = w; k < n; ++k) text[k] = '\0';
  text.resize(w);
  return quoted;
}

}  // namespace a3s::power::tok
