#include "base/printable.h"

#include <cstdint>

#include "base/hex.h"

namespace a3s::power {
namespace {

bool is_unprintable(unsigned char c, const PrintableStyle& style) {
  switch (style.unprintable) {
    case Unprintable::kControls:
      if (c < 0x20 || c == 0x7f) return true;
      break;
    case Unprintable::kBelowSpace:
      if (c < 0x20) return true;
      break;
    case Unprintable::kNonAscii:
      if (c < 0x20 || c > 0x7e) return true;
      break;
  }
  return style.also_unprintable.find(static_cast<char>(c)) != std::string_view::npos;
}

}  // namespace

std::string printable(std::string_view s, const PrintableStyle& style) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (out.size() >= style.max_bytes) {
      if (style.mark_cut) out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (!is_unprintable(c, style)) {
      out += static_cast<char>(c);
    } else if (style.hex_escape) {
      const uint8_t byte = c;
      out += "\\x";
      out += to_hex(std::span<const uint8_t>(&byte, 1));
    } else {
      out += '?';
    }
  }
  return out;
}

std::string printable_name(std::string_view s, size_t max_bytes) {
  PrintableStyle style;
  style.max_bytes = max_bytes;
  return printable(s, style);
}

}  // namespace a3s::power
