// Asserts that a provider refuses to produce evidence with Error(codes::kAttestationFailed).
#pragma once

#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "tee/evidence.h"
#include "a3s/power/error.h"

namespace a3s::power::tee::testing {

inline void expect_attestation_failed(EvidenceProvider& p, const ReportData& rd) {
  try {
    p.get_evidence(rd);
    FAIL() << "evidence accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kAttestationFailed) << e.what();
  }
}

}  // namespace a3s::power::tee::testing
