#include "config/config_error.h"

#include "a3s/power/error.h"

namespace a3s::power::config {

void fail(const hcl::SourcePos& pos, const std::string& message) {
  throw Error(codes::kConfig, pos.str() + ": " + message);
}

}  // namespace a3s::power::config
