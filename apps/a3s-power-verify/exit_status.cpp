#include "a3s-power-verify/exit_status.h"

#include "a3s/power/error.h"

namespace a3s::power::verify::cli {

int exit_status_for(ErrorCode error_code) {
  if (error_code == codes::kInvalidArgument || error_code == codes::kIo || error_code == codes::kNotBuilt)
    return kExitUsage;
  return kExitInternal;
}

}  // namespace a3s::power::verify::cli
