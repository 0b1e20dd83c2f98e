// ATTESTATION_REPORT parsing and serialisation on the real GCP report and on malformed input.
#include "attestation/sev_snp/report.h"

#include <gtest/gtest.h>

#include <random>

#include "a3s/power/error.h"
#include "snp_test_data.h"

namespace a3s::power::verify::sev_snp {
namespace {

using testing::hex;
using testing::real_report;

std::string error_code_of(std::span<const uint8_t> bytes) {
  try {
    parse_report(bytes);
  } catch (const Error& e) {
    return e.code();
  }
  return "";
}

TEST(SevSnpReport, RealGcpReportParsesToItsDocumentedFields) {
  const auto bytes = real_report();
  ASSERT_EQ(bytes.size(), kReportSize);
  const Report r = parse_report(bytes);
  EXPECT_EQ(r.version, 5u);
  EXPECT_EQ(r.guest_svn, 0u);
  EXPECT_EQ(r.vmpl, 1u);
  EXPECT_EQ(r.signature_algo, kSignatureAlgoEcdsaP384Sha384);
  EXPECT_FALSE(r.debug_allowed());
  EXPECT_EQ(r.policy, 0x30000u);  // SMT allowed, reserved bit 17
  EXPECT_EQ(hex(r.measurement), testing::kRealMeasurement);
  EXPECT_EQ(hex(r.report_data), testing::kRealReportData);
  EXPECT_EQ(r.signing_key, static_cast<uint8_t>(SigningKey::kVcek));
  EXPECT_FALSE(r.mask_chip_key);
  EXPECT_FALSE(r.author_key_en);
  EXPECT_EQ(r.cpuid_fam_id, 0x19);  // Milan
  EXPECT_EQ(r.cpuid_mod_id, 0x01);
  EXPECT_EQ(r.cpuid_step, 0x01);
  EXPECT_EQ(r.tcb_layout(), TcbLayout::kMilanGenoa);
  const TcbVersion want{0, 4, 0, 27, 222};
  EXPECT_EQ(r.reported(), want);
  EXPECT_EQ(r.current(), want);
  EXPECT_EQ(r.committed(), want);
  EXPECT_EQ(r.launch(), want);
  EXPECT_EQ(r.current_major, 1);
  EXPECT_EQ(r.current_minor, 0x37);
  EXPECT_EQ(r.current_build, 0x23);
  EXPECT_EQ(r.committed_major, 1);
  EXPECT_EQ(r.launch_mit_vector, 0xBu);
  EXPECT_EQ(r.current_mit_vector, 0xBu);
  EXPECT_EQ(hex(r.chip_id).substr(0, 16), "980cf7b61876cb37");
  // P-384 uses the low 48 bytes of each 72-byte little-endian component; the rest is zero.
  for (size_t i = 48; i < kSignatureComponentSize; ++i) {
    EXPECT_EQ(r.signature_r[i], 0);
    EXPECT_EQ(r.signature_s[i], 0);
  }
}

TEST(SevSnpReport, SerializeOfParseIsTheIdentity) {
  const auto bytes = real_report();
  EXPECT_EQ(serialize_report(parse_report(bytes)), bytes);
}

TEST(SevSnpReport, RoundTripForEveryVersionKeepsOnlyItsFields) {
  Report r;
  r.cpuid_fam_id = 0x1A;
  r.launch_mit_vector = 3;
  r.current_mit_vector = 5;
  r.report_data[0] = 0xAB;
  r.mask_chip_key = true;
  r.signing_key = static_cast<uint8_t>(SigningKey::kVlek);
  for (uint32_t v = kMinVersion; v <= kMaxVersion; ++v) {
    r.version = v;
    const auto bytes = serialize_report(r);
    ASSERT_EQ(bytes.size(), kReportSize);
    const Report back = parse_report(bytes);
    EXPECT_EQ(back.version, v);
    EXPECT_EQ(back.cpuid_fam_id, v >= 3 ? 0x1A : 0);
    EXPECT_EQ(back.launch_mit_vector, v >= 4 ? 3u : 0u);
    EXPECT_EQ(back.current_mit_vector, v >= 4 ? 5u : 0u);
    EXPECT_EQ(back.tcb_layout(), v >= 3 ? TcbLayout::kTurin : TcbLayout::kMilanGenoa);
    EXPECT_TRUE(back.mask_chip_key);
    EXPECT_EQ(back.signing_key, static_cast<uint8_t>(SigningKey::kVlek));
    EXPECT_EQ(back.report_data[0], 0xAB);
    EXPECT_EQ(serialize_report(back), bytes);
  }
}

TEST(SevSnpReport, DebugBitIsPolicyBit19) {
  auto bytes = real_report();
  bytes[0x008 + 2] |= 0x08;  // policy bit 19 lives in byte 2 of the 64-bit field
  EXPECT_TRUE(parse_report(bytes).debug_allowed());
}

TEST(SevSnpReport, SignedRegionIsTheFirst0x2A0Bytes) {
  const auto bytes = real_report();
  const auto region = signed_region(bytes);
  EXPECT_EQ(region.data(), bytes.data());
  EXPECT_EQ(region.size(), 0x2A0u);
  EXPECT_EQ(error_code_of({}), "malformed_evidence");
  try {
    signed_region(std::span<const uint8_t>(bytes).first(0x29F));
    FAIL() << "short input accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "malformed_evidence");
  }
}

TEST(SevSnpReport, WrongSizesAreMalformedEvidence) {
  auto bytes = real_report();
  for (size_t n : {size_t{0}, size_t{1}, size_t{0x2A0}, kReportSize - 1}) {
    EXPECT_EQ(error_code_of(std::span<const uint8_t>(bytes).first(n)), "malformed_evidence") << n;
  }
  bytes.push_back(0);
  EXPECT_EQ(error_code_of(bytes), "malformed_evidence");
  bytes.resize(4096, 0xFF);
  EXPECT_EQ(error_code_of(bytes), "malformed_evidence");
}

TEST(SevSnpReport, VersionsOutside2To5AreUnsupported) {
  auto bytes = real_report();
  for (uint32_t v : {0u, 1u, 6u, 7u, 255u, 0x01000005u, 0xFFFFFFFFu}) {
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
    EXPECT_EQ(error_code_of(bytes), "unsupported_version") << v;
  }
  Report r;
  r.version = 6;
  EXPECT_THROW(serialize_report(r), Error);
}

TEST(SevSnpReport, RandomGarbageNeverCrashes) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<size_t> size(0, 2 * kReportSize);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<uint8_t> bytes(trial % 2 ? kReportSize : size(rng));
    for (auto& b : bytes) b = static_cast<uint8_t>(byte(rng));
    if (trial % 4 == 1) bytes[0] = static_cast<uint8_t>(2 + trial % 4), bytes[1] = bytes[2] = bytes[3] = 0;
    const std::string code = error_code_of(bytes);
    EXPECT_TRUE(code.empty() || code == "malformed_evidence" || code == "unsupported_version") << code;
  }
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp
