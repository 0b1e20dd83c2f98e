#include "base/process_hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power {

void disable_core_dumps() {
  const rlimit none{0, 0};
  if (::setrlimit(RLIMIT_CORE, &none) != 0) {
    throw Error(codes::kInternal, std::string("cannot disable core dumps: setrlimit(RLIMIT_CORE): ") +
                                      std::strerror(errno));
  }
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    throw Error(codes::kInternal, std::string("cannot disable core dumps: prctl(PR_SET_DUMPABLE): ") +
                                      std::strerror(errno));
  }
}

}  // namespace a3s::power
