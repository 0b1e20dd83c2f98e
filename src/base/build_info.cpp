#include "base/build_info.h"

#include "a3s/power/error.h"

namespace a3s::power {

std::string version_text(std::string_view program) {
  std::string out(program);
  out.append(" ").append(product_version());
  out.append("\nprofile: ").append(build_profile());
  out.append("\ncommit: ").append(build_commit());
  return out;
}

Error not_built(std::string_view what, std::string_view reason) {
  std::string message(what);
  message.append(" is not built into this profile (").append(build_profile()).append(": ").append(reason).append(")");
  return Error(codes::kNotBuilt, message);
}

}  // namespace a3s::power
