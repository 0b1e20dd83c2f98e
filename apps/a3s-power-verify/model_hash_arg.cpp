#include "a3s-power-verify/model_hash_arg.h"

#include "a3s/power/error.h"
#include "a3s-power-verify/hex_arg.h"

namespace a3s::power::verify::cli {

Sha256 parse_model_hash(std::string_view text) {
  constexpr std::string_view kPrefix = "sha256:";
  if (text.substr(0, kPrefix.size()) != kPrefix)
    throw Error(codes::kInvalidArgument, "--expected-hash must be sha256:<64 hex digits>");
  return parse_hex_array<32>(text.substr(kPrefix.size()), "--expected-hash (after sha256:)");
}

}  // namespace a3s::power::verify::cli
