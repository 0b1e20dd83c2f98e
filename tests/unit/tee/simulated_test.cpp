// Simulated evidence: a real-layout SEV-SNP report under a generated, clearly labelled hierarchy that the
// shared verifier rejects by default and accepts only with the simulated root passed explicitly.
#include <gtest/gtest.h>

#include <algorithm>

#include "tee/simulated_provider.h"
#include "tee_test_data.h"
#include "attestation/sev_snp/cert_table.h"
#include "verify/sev_snp/sev_snp_verify.h"

namespace a3s::power::tee {
namespace {

namespace snp = verify::sev_snp;
using namespace testing;

ReportData sample_report_data() {
  ReportData rd{};
  for (size_t i = 0; i < rd.size(); ++i) rd[i] = static_cast<uint8_t>(i * 7);
  return rd;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(Simulated, EvidenceIsLabelledAndInTheSevSnpLayout) {
  SimulatedProvider provider;
  const ReportData rd = sample_report_data();
  const Evidence ev = provider.get_evidence(rd);
  EXPECT_EQ(ev.tee_type, "simulated");
  EXPECT_EQ(ev.format, "sev-snp-report");
  EXPECT_TRUE(ev.simulated);
  EXPECT_FALSE(ev.verifiable_remotely);
  ASSERT_EQ(ev.raw.size(), snp::kReportSize);
  const snp::Report r = snp::parse_report(ev.raw);
  EXPECT_EQ(r.version, 5u);
  EXPECT_EQ(r.report_data, rd);
  EXPECT_EQ(r.measurement, SimulatedProvider::measurement());
  EXPECT_FALSE(r.debug_allowed());

  std::string error;
  const auto table = snp::parse_cert_table(ev.certificates, error);
  ASSERT_TRUE(table) << error;
  for (const std::string* der : {&table->vcek, &table->ask, &table->ark})
    EXPECT_TRUE(contains(*der, "A3S Power SIMULATED"));
  EXPECT_TRUE(contains(table->ark, "A3S Power SIMULATED ARK"));
  EXPECT_TRUE(contains(table->vcek, "A3S Power SIMULATED VCEK"));
}

TEST(Simulated, VerifierRejectsItByDefault) {
  SimulatedProvider provider;
  const Evidence ev = provider.get_evidence(sample_report_data());
  std::string error;
  const auto table = snp::parse_cert_table(ev.certificates, error);
  ASSERT_TRUE(table) << error;
  const verify::VerifyResult res = snp::verify_report(ev.raw, snp::endorsements_from(*table), {});
  EXPECT_FALSE(res.accepted);
  EXPECT_EQ(res.failed_step, verify::steps::kChainInvalid) << res.message;
}

TEST(Simulated, VerifierAcceptsItWithTheSimulatedRootPassedExplicitly) {
  SimulatedProvider provider;
  const ReportData rd = sample_report_data();
  const Evidence ev = provider.get_evidence(rd);
  std::string error;
  const auto table = snp::parse_cert_table(ev.certificates, error);
  ASSERT_TRUE(table) << error;
  snp::Policy policy;
  policy.expected_report_data = rd;
  policy.expected_measurements = {SimulatedProvider::measurement()};
  snp::VerifyOptions options;
  options.anchors = provider.anchors();
  const verify::VerifyResult ok = snp::verify_report(ev.raw, snp::endorsements_from(*table), policy, options);
  EXPECT_TRUE(ok.accepted) << ok.failed_step << ": " << ok.message;

  // Another provider's root does not accept it.
  SimulatedProvider other;
  options.anchors = other.anchors();
  EXPECT_FALSE(snp::verify_report(ev.raw, snp::endorsements_from(*table), policy, options).accepted);

  // Tampering with the signed region breaks the signature.
  std::vector<uint8_t> tampered = ev.raw;
  tampered[0x50] ^= 1;  // REPORT_DATA
  options.anchors = provider.anchors();
  EXPECT_FALSE(snp::verify_report(tampered, snp::endorsements_from(*table), {}, options).accepted);
}

}  // namespace
}  // namespace a3s::power::tee
