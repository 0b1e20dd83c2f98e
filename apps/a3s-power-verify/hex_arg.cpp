#include "a3s-power-verify/hex_arg.h"

#include "a3s/power/error.h"

namespace a3s::power::verify::cli {
namespace {

int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::vector<uint8_t> parse_hex(std::string_view text, size_t size, const std::string& flag) {
  const std::string expected = std::to_string(2 * size) + " hex digits (" + std::to_string(size) + " bytes)";
  if (text.size() != 2 * size)
    throw Error(codes::kInvalidArgument,
                flag + " must be " + expected + ", got " + std::to_string(text.size()) + " characters");
  std::vector<uint8_t> out(size);
  for (size_t i = 0; i < size; ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) throw Error(codes::kInvalidArgument, flag + " must be " + expected + ": not hex");
    out[i] = uint8_t(hi << 4 | lo);
  }
  return out;
}

}  // namespace a3s::power::verify::cli
