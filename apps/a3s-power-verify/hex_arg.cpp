#include "a3s-power-verify/hex_arg.h"

#include "a3s/power/error.h"
#include "base/hex.h"

namespace a3s::power::verify::cli {
std::vector<uint8_t> parse_hex(std::string_view text, size_t size, const std::string& flag) {
  const std::string expected = std::to_string(2 * size) + " hex digits (" + std::to_string(size) + " bytes)";
  if (text.size() != 2 * size)
    throw Error(codes::kInvalidArgument,
                flag + " must be " + expected + ", got " + std::to_string(text.size()) + " characters");
  std::vector<uint8_t> out(size);
  if (!decode_hex(text, out)) throw Error(codes::kInvalidArgument, flag + " must be " + expected + ": not hex");
  return out;
}

}  // namespace a3s::power::verify::cli
