#include <gtest/gtest.h>

#include "a3s/power/verify.h"
#include "test_files.h"

namespace a3s::power::verify {
namespace {

TEST(EvidenceType, RealEvidence) {
  EXPECT_EQ(detect_tee_type(read_attestation("sev-snp/sev-gcp-reportdata.bin")), TeeType::kSevSnp);
  EXPECT_EQ(detect_tee_type(read_attestation("tdx/tdx-v4-edgeless.dat")), TeeType::kTdx);
  EXPECT_EQ(detect_tee_type(read_attestation("tdx/quote.dat")), TeeType::kTdx);
}

TEST(EvidenceType, SnpNeedsExactSizeAndVersion2To5) {
  std::vector<uint8_t> r(1184, 0);
  for (uint8_t v : {2, 3, 4, 5}) {
    r[0] = v;
    EXPECT_EQ(detect_tee_type(r), TeeType::kSevSnp) << int(v);
  }
  for (uint8_t v : {0, 1, 6}) {
    r[0] = v;
    EXPECT_EQ(detect_tee_type(r), TeeType::kUnknown) << int(v);
  }
  r[0] = 5;
  r.push_back(0);
  EXPECT_EQ(detect_tee_type(r), TeeType::kUnknown);
}

TEST(EvidenceType, TdxNeedsVersion4Or5AndTeeType0x81) {
  std::vector<uint8_t> q(48, 0);
  q[4] = 0x81;
  for (uint8_t v : {4, 5}) {
    q[0] = v;
    EXPECT_EQ(detect_tee_type(q), TeeType::kTdx) << int(v);
  }
  q[0] = 3;
  EXPECT_EQ(detect_tee_type(q), TeeType::kUnknown);
  q[0] = 4;
  q[4] = 0x00;  // SGX
  EXPECT_EQ(detect_tee_type(q), TeeType::kUnknown);
  EXPECT_EQ(detect_tee_type({}), TeeType::kUnknown);
  EXPECT_EQ(detect_tee_type(std::vector<uint8_t>{4, 0, 2, 0, 0x81}), TeeType::kUnknown);  // shorter than 8
}

TEST(EvidenceType, Names) {
  EXPECT_EQ(to_string(TeeType::kSevSnp), "sev-snp");
  EXPECT_EQ(to_string(TeeType::kTdx), "tdx");
  EXPECT_EQ(to_string(TeeType::kUnknown), "unknown");
}

}  // namespace
}  // namespace a3s::power::verify
