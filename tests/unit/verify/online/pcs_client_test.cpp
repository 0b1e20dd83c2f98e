// Intel PCS v4 request paths, issuer-chain header decoding and the nextUpdate dates that bound how
// long fetched collateral is cached.
#include "verify/online/pcs_client.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power::verify::online {
namespace {

std::string testdata(const std::string& rel) {
  std::ifstream in(std::string(A3S_TESTDATA_DIR) + "/attestation/" + rel, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
}

std::span<const uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(PcsClient, Paths) {
  EXPECT_EQ(tcb_info_path({0x00, 0x80, 0x6f, 0x05, 0x00, 0x00}), "/tdx/certification/v4/tcb?fmspc=00806F050000");
  EXPECT_EQ(qe_identity_path(), "/tdx/certification/v4/qe/identity");
  EXPECT_EQ(pck_crl_path("platform"), "/sgx/certification/v4/pckcrl?ca=platform&encoding=der");
  EXPECT_EQ(root_ca_crl_path(), "/sgx/certification/v4/rootcacrl");
}

TEST(PcsClient, QueryFromTheQuotesOwnPckChain) {
  // The real quote carries its PCK chain (certification data type 5): FMSPC 00806f050000.
  const auto q = pcs_query_for(bytes(testdata("tdx/tdx-v4-edgeless.dat")), "");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(tcb_info_path(q->fmspc), "/tdx/certification/v4/tcb?fmspc=00806F050000");
  EXPECT_TRUE(q->pck_ca == "platform" || q->pck_ca == "processor");
}

TEST(PcsClient, QueryFromAGivenPckChain) {
  const auto q = pcs_query_for(bytes(testdata("tdx/quote.dat")), testdata("tdx/pckCert.pem"));
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(tcb_info_path(q->fmspc), "/tdx/certification/v4/tcb?fmspc=ED742AF8ADF5");
  EXPECT_EQ(q->pck_ca, "processor");
}

TEST(PcsClient, NoQueryForAQuoteThatDoesNotParse) {
  const std::string junk(100, 'x');
  EXPECT_FALSE(pcs_query_for(bytes(junk), "").has_value());
}

TEST(PcsClient, UrlDecode) {
  EXPECT_EQ(url_decode("-----BEGIN%20CERTIFICATE-----%0AMIIC%2B%2F%3D"), "-----BEGIN CERTIFICATE-----\nMIIC+/=");
  EXPECT_THROW(url_decode("%4"), Error);
  EXPECT_THROW(url_decode("%zz"), Error);
}

TEST(PcsClient, NextUpdateOfCollateralJson) {
  // qeIdentity.json: "nextUpdate":"2041-08-06T13:55:15Z"
  EXPECT_EQ(json_next_update(testdata("tdx/qeIdentity.json")), std::optional<std::time_t>(2259410115));
  EXPECT_EQ(json_next_update(R"({"tcbInfo":{"nextUpdate":"1970-01-02T00:00:00Z"}})"),
            std::optional<std::time_t>(86400));
  EXPECT_FALSE(json_next_update(R"({"tcbInfo":{}})").has_value());
  EXPECT_FALSE(json_next_update("not json").has_value());
}

TEST(PcsClient, NextUpdateOfACrl) {
  // rootCaCrl.der: nextUpdate Aug 4 13:55:15 2031 GMT
  EXPECT_EQ(crl_next_update(testdata("tdx/rootCaCrl.der")), std::optional<std::time_t>(1943618115));
  EXPECT_FALSE(crl_next_update("junk").has_value());
}

}  // namespace
}  // namespace a3s::power::verify::online
