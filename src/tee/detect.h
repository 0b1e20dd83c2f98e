// Choosing the evidence provider at startup.
//
// Order (the first that is present wins):
//   1. configfs-tsm   <root>/sys/kernel/config/tsm/report is a directory     (SEV-SNP report / TDX quote)
//   2. sev-guest      <root>/dev/sev-guest exists                             (SEV-SNP report)
//   3. tdx-guest      <root>/dev/tdx_guest exists                             (TDREPORT, local only)
//   4. none           policy "development" → the simulated provider;
//                     policy "strict" → Error(codes::kTeeUnavailable)
// Under "strict", a platform that only offers /dev/tdx_guest is refused as well
// (Error(codes::kTeeUnavailable)): its TDREPORT cannot be verified remotely, and strict fails closed.
// Detection only looks at paths; the first evidence request talks to the device.
#pragma once

#include <filesystem>
#include <memory>

#include "tee/device_ioctl.h"
#include "tee/evidence.h"
#include "a3s/power/settings.h"

namespace a3s::power::tee {

struct DetectOptions {
  std::filesystem::path root = "/";
  TeePolicy policy = TeePolicy::kStrict;
  DeviceIoctl ioctl = system_device_ioctl();  // for /dev/sev-guest and /dev/tdx_guest
};

std::unique_ptr<EvidenceProvider> detect_provider(const DetectOptions& options);

}  // namespace a3s::power::tee
