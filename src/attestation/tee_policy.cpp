#include "attestation/tee_policy.h"

#include "a3s/power/error.h"

namespace a3s::power::tee {

const char* to_string(TeePolicy policy) {
  return policy == TeePolicy::kStrict ? "strict" : "development";
}

TeePolicy parse_tee_policy(std::string_view text) {
  if (text == "strict") return TeePolicy::kStrict;
  if (text == "development") return TeePolicy::kDevelopment;
  throw Error(codes::kInvalidArgument, "tee_policy must be \"strict\" or \"development\"");
}

}  // namespace a3s::power::tee
