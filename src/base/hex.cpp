#include "base/hex.h"

#include <algorithm>

#include "a3s/power/error.h"

namespace a3s::power {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

// A zeroing store the compiler may not elide: `out` may have held part of a secret.
void zero(std::span<uint8_t> out) {
  volatile uint8_t* p = out.data();
  for (size_t i = 0; i < out.size(); ++i) p[i] = 0;
}

}  // namespace

std::string to_hex(std::span<const uint8_t> bytes) {
  std::string out(2 * bytes.size(), '\0');
  to_hex(bytes, std::span<char>(out.data(), out.size()));
  return out;
}

void to_hex(std::span<const uint8_t> bytes, std::span<char> out) {
  if (out.size() != 2 * bytes.size()) throw Error(codes::kInternal, "to_hex: the output buffer has the wrong size");
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
}

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool decode_hex(std::string_view text, std::span<uint8_t> out) {
  if (text.size() != 2 * out.size()) {
    zero(out);
    return false;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit_value(text[2 * i]);
    const int lo = hex_digit_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      zero(out);
      return false;
    }
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

std::optional<std::vector<uint8_t>> decode_hex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> out(text.size() / 2);
  if (!decode_hex(text, out)) return std::nullopt;
  return out;
}

}  // namespace a3s::power
