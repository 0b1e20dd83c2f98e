#include "tee/detect.h"

#include "a3s/power/error.h"
#include "tee/configfs_tsm_provider.h"
#include "tee/sev_guest_provider.h"
#include "tee/simulated_provider.h"
#include "tee/tdx_guest_provider.h"
#include "a3s/power/error.h"

namespace a3s::power::tee {

std::unique_ptr<EvidenceProvider> detect_provider(const DetectOptions& options) {
  if (ConfigfsTsmProvider::available(options.root)) {
    ConfigfsTsmOptions tsm;
    tsm.root = options.root;
    return std::make_unique<ConfigfsTsmProvider>(std::move(tsm));
  }
  if (SevGuestProvider::available(options.root))
    return std::make_unique<SevGuestProvider>(options.root, options.ioctl);
  const bool strict = options.policy == TeePolicy::kStrict;
  if (TdxGuestProvider::available(options.root)) {
    if (strict)
      throw Error(
          codes::kTeeUnavailable,
          "tee_policy strict: /dev/tdx_guest yields only a TDREPORT, which cannot be verified remotely, "
          "and configfs-tsm (/sys/kernel/config/tsm/report) is not available");
    return std::make_unique<TdxGuestProvider>(options.root, options.ioctl);
  }
  if (strict)
    throw Error(
        codes::kTeeUnavailable,
        "tee_policy strict: no TEE evidence provider found (configfs-tsm, /dev/sev-guest, /dev/tdx_guest)");
  return std::make_unique<SimulatedProvider>();
}

}  // namespace a3s::power::tee
