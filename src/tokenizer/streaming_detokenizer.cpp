// StreamingDetokenizer (declared in tokenizer.h): holds back the bytes of an unfinished UTF-8
// sequence; bytes that can never form a valid sequence are replaced by U+FFFD at once.
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace a3s::power {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Moves the longest emit-able prefix of `pending` to the result; an incomplete tail stays.
std::string drain(std::string& pending) {
  std::string out;
  std::string_view rest(pending);
  while (!rest.empty()) {
    const tok::Utf8Scan scan = tok::scan_utf8(rest);
    out.append(rest.substr(0, scan.valid));
    rest.remove_prefix(scan.valid);
    if (scan.invalid > 0) {
      out.append(kReplacement);
      rest.remove_prefix(scan.invalid);
      continue;
    }
    break;  // done, or an incomplete tail remains in `rest`
  }
  pending.erase(0, pending.size() - rest.size());
  return out;
}

}  // namespace

std::string StreamingDetokenizer::push(Token t) {
  pending_ += tok_.token_to_piece(t, special_);
  return drain(pending_);
}

std::string StreamingDetokenizer::flush() {
  std::string out = drain(pending_);
  if (!pending_.empty()) out.append(kReplacement);
  pending_.clear();
  return out;
}

}  // namespace a3s::power
