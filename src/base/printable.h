// Rendering untrusted names (file paths, key sources, metadata values, environment values) for
// one-line messages, so that a name can neither break a log line nor flood it.
//
// printable_name: control characters (below 0x20, and DEL) become '?' and the text is cut at
// `max_bytes`. printable: the same with a PrintableStyle, for callers whose messages render names
// differently (printable ASCII only, \xNN escapes, a "..." mark where the text was cut). Neither
// throws; the output is never longer than max_bytes plus one escape and the "..." mark.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace a3s::power {

// Which bytes are unprintable.
enum class Unprintable {
  kControls,    // below 0x20 and 0x7F (DEL); bytes of UTF-8 text are kept
  kBelowSpace,  // below 0x20 only
  kNonAscii,    // everything outside printable ASCII 0x20..0x7E
};

struct PrintableStyle {
  // The rendered text stops once it holds max_bytes bytes (an escape begun below the limit is finished).
  size_t max_bytes = 256;
  Unprintable unprintable = Unprintable::kControls;
  // Further characters treated as unprintable (quotes or a backslash around a quoted value).
  std::string_view also_unprintable = {};
  // An unprintable byte becomes "\xNN" (lowercase hex) instead of '?'.
  bool hex_escape = false;
  // "..." is appended when input was left out.
  bool mark_cut = false;
};

std::string printable(std::string_view s, const PrintableStyle& style);

// printable(s, {max_bytes}): control characters as '?', cut at max_bytes, no mark.
std::string printable_name(std::string_view s, size_t max_bytes = 256);

}  // namespace a3s::power
