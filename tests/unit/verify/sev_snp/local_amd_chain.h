// Test names for the locally generated AMD-style key hierarchy (src/attestation/simulated/local_key_hierarchy.h).
#pragma once

#include "attestation/simulated/local_key_hierarchy.h"

namespace a3s::power::verify::sev_snp::testing {

using sev_snp::LeafSpec;
using LocalAmdChain = sev_snp::LocalKeyHierarchy;

}  // namespace a3s::power::verify::sev_snp::testing
