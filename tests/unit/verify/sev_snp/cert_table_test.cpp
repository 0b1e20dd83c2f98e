// The extended report's certificate table: round trip, verification of the real report with the
// certificates taken from a table, and malformed tables.
#include "attestation/sev_snp/cert_table.h"

#include <gtest/gtest.h>

#include "snp_test_data.h"
#include "verify/sev_snp/x509_certificates.h"

namespace a3s::power::verify::sev_snp {
namespace {

using namespace std::chrono;
using testing::read_text;
using testing::snp_testdata;

CertTable real_table() {
  const auto vcek = load_certificates(read_text(snp_testdata("sev-gcp-vcek.pem")));
  const auto chain = load_certificates(read_text(snp_testdata("sev-gcp-cert-chain.pem")));
  CertTable t;
  t.vcek = to_der((*vcek)[0].get());
  t.ask = to_der((*chain)[0].get());
  t.ark = to_der((*chain)[1].get());
  return t;
}

TEST(CertTable, LayoutUsesTheGuidTextByteOrder) {
  CertTable t;
  t.vcek = "abc";
  const auto bytes = serialize_cert_table(t);
  ASSERT_EQ(bytes.size(), 2 * 24 + 3u);
  EXPECT_EQ(testing::hex(bytes.data(), 16), "63da758de6644564adc5f4b93be8accd");
  EXPECT_EQ(bytes[16], 48);  // offset: after one entry and the terminator
  EXPECT_EQ(bytes[20], 3);   // length
}

TEST(CertTable, RoundTripAndVerifyTheRealReport) {
  const CertTable table = real_table();
  const auto bytes = serialize_cert_table(table);
  std::string error;
  const auto parsed = parse_cert_table(bytes, error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->vcek, table.vcek);
  EXPECT_EQ(parsed->ask, table.ask);
  EXPECT_EQ(parsed->ark, table.ark);
  EXPECT_TRUE(parsed->vlek.empty());
  VerifyOptions o;
  o.at = sys_days{year{2026} / 6 / 1};
  const VerifyResult r = verify_report(testing::real_report(), endorsements_from(*parsed), {}, o);
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST(CertTable, UnknownGuidsAreSkipped) {
  CertTable t;
  t.vcek = "v";
  auto bytes = serialize_cert_table(t);
  bytes[0] ^= 0xFF;  // no longer the VCEK GUID
  std::string error;
  const auto parsed = parse_cert_table(bytes, error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_TRUE(parsed->vcek.empty());
}

TEST(CertTable, MalformedTablesAreRejected) {
  const auto good = serialize_cert_table(real_table());
  std::string error;
  EXPECT_FALSE(parse_cert_table({}, error));
  EXPECT_FALSE(parse_cert_table(std::span<const uint8_t>(good).first(24 * 3), error));  // no terminator
  auto bad = good;
  bad[16 + 3] = 0x7F;  // VCEK offset far outside
  EXPECT_FALSE(parse_cert_table(bad, error));
  EXPECT_NE(error.find("outside"), std::string::npos);
  bad = good;
  bad[20] = 0, bad[21] = 0, bad[22] = 0, bad[23] = 0;  // zero length
  EXPECT_FALSE(parse_cert_table(bad, error));
  bad = good;
  std::copy_n(good.begin(), 16, bad.begin() + 24);  // ASK entry relabelled as a second VCEK
  EXPECT_FALSE(parse_cert_table(bad, error));
  EXPECT_NE(error.find("repeats"), std::string::npos);
  // A truncated table whose entries are intact but whose certificates are cut off.
  EXPECT_FALSE(parse_cert_table(std::span<const uint8_t>(good).first(good.size() - 1), error));
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp
