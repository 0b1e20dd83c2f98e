// Parsing and naming of the model loading options (include/a3s/power/engine.h).
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "a3s/power/engine.h"

namespace a3s::power {

std::optional<uint64_t> parse_memory_size(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || !std::isfinite(v) || v <= 0) return std::nullopt;
  std::string_view unit(p, static_cast<size_t>(s.data() + s.size() - p));
  double scale = 1;
  if (!unit.empty()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
    const std::string_view rest = unit.substr(1);
    if (!(rest.empty() || rest == "B" || rest == "b" || rest == "iB" || rest == "ib")) return std::nullopt;
    switch (u) {
      case 'K': scale = 1024.0; break;
      case 'M': scale = 1024.0 * 1024; break;
      case 'G': scale = 1024.0 * 1024 * 1024; break;
      case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
      case 'B': if (rest.empty()) break; return std::nullopt;
      default: return std::nullopt;
    }
  }
  const double bytes = v * scale;
  if (bytes < 1 || bytes > 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

}  // namespace a3s::power
