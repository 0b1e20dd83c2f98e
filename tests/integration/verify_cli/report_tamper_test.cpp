// Tampered, truncated and garbage evidence files: each is rejected (exit 3) at the step the flipped
// or missing bytes belong to. (The library tests flip bits at many more positions; here the CLI's
// mapping of those outcomes to exit status and output is checked.)
#include <random>

#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

std::string step_for(const std::vector<uint8_t>& evidence, std::vector<std::string> extra) {
  ScratchDir dir;
  std::vector<std::string> args = {"report", "--file", dir.write("evidence.bin", evidence), "--format",
                                   "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = run_verify(args);
  expect_one_line_error(r, 3);
  if (r.status != 3) return "exit " + std::to_string(r.status);
  return parse_json_output(r)["failed_step"].get<std::string>();
}

std::vector<uint8_t> flipped(std::vector<uint8_t> bytes, size_t byte, int bit) {
  bytes.at(byte) ^= uint8_t(1u << bit);
  return bytes;
}

std::vector<std::string> snp_extra() {
  return {"--vcek", attestation("sev-snp/sev-gcp-vcek.pem")};
}
std::vector<std::string> tdx_extra() {
  return {"--no-tcb-check", "--at", "2025-09-01"};
}

TEST(VerifyCliTamper, SnpSignedRegionAndSignature) {
  const auto report = read_bytes(attestation("sev-snp/sev-gcp-reportdata.bin"));
  ASSERT_EQ(report.size(), 1184u);
  EXPECT_EQ(step_for(flipped(report, 0x90, 0), snp_extra()), "signature_invalid");   // MEASUREMENT
  EXPECT_EQ(step_for(flipped(report, 0x50, 7), snp_extra()), "signature_invalid");   // REPORT_DATA
  EXPECT_EQ(step_for(flipped(report, 0x0A, 3), snp_extra()), "signature_invalid");   // POLICY debug bit
  EXPECT_EQ(step_for(flipped(report, 0x2A0, 0), snp_extra()), "signature_invalid");  // SIGNATURE R
  EXPECT_EQ(step_for(flipped(report, 0x2E8, 5), snp_extra()), "signature_invalid");  // SIGNATURE S
  std::mt19937 rng(20250901);
  for (int i = 0; i < 8; ++i) {
    const size_t byte = 4 + rng() % (0x2A0 - 4);  // past VERSION, inside the signed region
    const int bit = int(rng() % 8);
    EXPECT_EQ(step_for(flipped(report, byte, bit), snp_extra()), "signature_invalid") << "byte " << byte;
  }
}

TEST(VerifyCliTamper, SnpVersionOutOfRangeIsNotEvidence) {
  const auto report = read_bytes(attestation("sev-snp/sev-gcp-reportdata.bin"));
  EXPECT_EQ(step_for(flipped(report, 0, 1), snp_extra()), "malformed_evidence");  // VERSION 5 -> 7
}

TEST(VerifyCliTamper, TdxQuoteRegions) {
  const auto quote = read_bytes(attestation("tdx/tdx-v4-edgeless.dat"));
  // v4 layout: header [0, 48) | body [48, 632) | sig_len u32 | signature [636, 700) |
  // attestation key [700, 764) | cert type u16 | cert size u32 | QE report [770, 1154) | QE sig [1154, 1218)
  EXPECT_EQ(step_for(flipped(quote, 48 + 136, 0), tdx_extra()), "signature_invalid");  // MRTD
  EXPECT_EQ(step_for(flipped(quote, 48 + 520, 2), tdx_extra()), "signature_invalid");  // REPORTDATA
  EXPECT_EQ(step_for(flipped(quote, 640, 4), tdx_extra()), "signature_invalid");       // quote signature
  EXPECT_EQ(step_for(flipped(quote, 710, 1), tdx_extra()), "signature_invalid");       // attestation key
  EXPECT_EQ(step_for(flipped(quote, 800, 6), tdx_extra()), "qe_report_invalid");       // QE report
  EXPECT_EQ(step_for(flipped(quote, 1160, 0), tdx_extra()), "qe_report_invalid");      // QE report signature
  EXPECT_EQ(step_for(flipped(quote, 4, 0), tdx_extra()), "malformed_evidence");  // TEE type 0x81 -> 0x80
}

TEST(VerifyCliTamper, TruncatedEvidence) {
  auto report = read_bytes(attestation("sev-snp/sev-gcp-reportdata.bin"));
  report.pop_back();
  EXPECT_EQ(step_for(report, snp_extra()), "malformed_evidence");
  auto quote = read_bytes(attestation("tdx/tdx-v4-edgeless.dat"));
  quote.resize(1000);
  EXPECT_EQ(step_for(quote, tdx_extra()), "malformed_evidence");
}

TEST(VerifyCliTamper, GarbageAndEmptyFiles) {
  std::mt19937 rng(7);
  std::vector<uint8_t> garbage(2048);
  for (auto& b : garbage) b = uint8_t(rng());
  EXPECT_EQ(step_for(garbage, {}), "malformed_evidence");
  EXPECT_EQ(step_for({}, {}), "malformed_evidence");
}

}  // namespace
}  // namespace a3s::power::verify_cli
