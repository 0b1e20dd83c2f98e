// AMD KDS request paths (AMD 57230, "KDS Interface") for reports of each product.
#include "verify/online/kds_client.h"
#include "verify/online/endorsement_fetch.h"

#include <gtest/gtest.h>

#include <string>

#include "a3s/power/error.h"

namespace a3s::power::verify::online {
namespace {

sev_snp::Report report(uint8_t family, uint8_t model, uint32_t version = 3) {
  sev_snp::Report r;
  r.version = version;
  r.cpuid_fam_id = family;
  r.cpuid_mod_id = model;
  for (std::size_t i = 0; i < r.chip_id.size(); ++i) r.chip_id[i] = static_cast<uint8_t>(i + 1);
  // Milan/Genoa layout: bl at byte 0, tee 1, snp 6, ucode 7.
  r.reported_tcb = sev_snp::encode_tcb(sev_snp::TcbVersion{0, 3, 0, 8, 115}, r.tcb_layout());
  return r;
}

std::string chip_hex(std::size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += kHex[(i + 1) >> 4];
    out += kHex[(i + 1) & 15];
  }
  return out;
}

TEST(KdsClient, MilanPathHasTheWholeChipIdAndTwoDigitSpls) {
  const VcekRequest req = vcek_request_for(report(0x19, 0x01));
  EXPECT_EQ(req.product, AmdProduct::kMilan);
  EXPECT_EQ(vcek_path(req), "/vcek/v1/Milan/" + chip_hex(64) + "?blSPL=03&teeSPL=00&snpSPL=08&ucodeSPL=115");
}

TEST(KdsClient, VersionTwoReportsAreMilan) {
  EXPECT_EQ(vcek_request_for(report(0, 0, 2)).product, AmdProduct::kMilan);
}

TEST(KdsClient, GenoaModels) {
  EXPECT_EQ(vcek_request_for(report(0x19, 0x11)).product, AmdProduct::kGenoa);
  EXPECT_EQ(vcek_request_for(report(0x19, 0xA0)).product, AmdProduct::kGenoa);
  EXPECT_EQ(vcek_path(vcek_request_for(report(0x19, 0x11))).rfind("/vcek/v1/Genoa/" + chip_hex(64) + "?blSPL=", 0),
            0u);
}

TEST(KdsClient, TurinUsesAnEightByteHwidAndTheFmcSpl) {
  sev_snp::Report r = report(0x1A, 0x02);
  r.reported_tcb = sev_snp::encode_tcb(sev_snp::TcbVersion{1, 2, 3, 4, 5}, r.tcb_layout());
  const VcekRequest req = vcek_request_for(r);
  EXPECT_EQ(req.product, AmdProduct::kTurin);
  EXPECT_EQ(vcek_path(req), "/vcek/v1/Turin/" + chip_hex(8) + "?fmcSPL=01&blSPL=02&teeSPL=03&snpSPL=04&ucodeSPL=05");
}

TEST(KdsClient, CertChainAndCrlPaths) {
  EXPECT_EQ(cert_chain_path(AmdProduct::kGenoa), "/vcek/v1/Genoa/cert_chain");
  EXPECT_EQ(crl_path(AmdProduct::kMilan), "/vcek/v1/Milan/crl");
}

// An endorsement service is an https (or loopback http) URL: a server's vsock address is refused.
TEST(KdsClient, EndorsementServiceUrlsAreHttpOnly) {
  EXPECT_EQ(endorsement_url("https://kds.example", "/vcek/v1/Milan/crl"), "https://kds.example:443/vcek/v1/Milan/crl");
  try {
    endorsement_url("vsock://2:5000", "/vcek/v1/Milan/crl");
    FAIL() << "a vsock endorsement service";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("http or https"), std::string::npos) << e.what();
  }
}

TEST(KdsClient, MaskedChipIdCannotBeLookedUp) {
  sev_snp::Report r = report(0x19, 0x01);
  r.chip_id.fill(0);
  try {
    vcek_request_for(r);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("CHIP_ID"), std::string::npos);
  }
}

TEST(KdsClient, VlekSignedReportsAreNotFetched) {
  sev_snp::Report r = report(0x19, 0x01);
  r.signing_key = static_cast<uint8_t>(sev_snp::SigningKey::kVlek);
  EXPECT_THROW(vcek_request_for(r), Error);
}

TEST(KdsClient, UnknownFamilyIsRefused) {
  EXPECT_THROW(vcek_request_for(report(0x17, 0x31)), Error);
}

}  // namespace
}  // namespace a3s::power::verify::online
