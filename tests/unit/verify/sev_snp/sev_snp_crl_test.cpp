// AMD's CRL (KDS /vcek/v1/{product}/crl) applied to the VCEK chain: a CRL signed by the ARK that lists
// neither certificate passes; listing the ASK or the VCEK revokes; a CRL not signed by the ARK, not
// issued by it, past its nextUpdate or unparsable fails; no CRL leaves revocation unchecked.
#include <gtest/gtest.h>

#include "local_amd_chain.h"
#include "verify/sev_snp/sev_snp_verify.h"

namespace a3s::power::verify::sev_snp {
namespace {

using testing::LeafSpec;
using testing::LocalAmdChain;

Report chip_report(const LeafSpec& spec) {
  Report r;
  r.version = 5;
  r.cpuid_fam_id = 0x19;
  r.cpuid_mod_id = 0x01;
  r.reported_tcb = encode_tcb(spec.tcb, TcbLayout::kMilanGenoa);
  r.current_tcb = r.committed_tcb = r.launch_tcb = r.reported_tcb;
  for (size_t i = 0; i < r.chip_id.size(); ++i) r.chip_id[i] = static_cast<uint8_t>(0x30 + i);
  return r;
}

LeafSpec spec() {
  LeafSpec s;
  for (size_t i = 0; i < 64; ++i) s.hw_id.push_back(static_cast<uint8_t>(0x30 + i));
  return s;
}

VerifyResult verify_with_crl(const LocalAmdChain& chain, const std::vector<uint8_t>& crl) {
  VerifyOptions o;
  o.anchors = chain.anchors();
  Endorsements e{chain.vcek_pem, {}, std::string(crl.begin(), crl.end())};
  return verify_report(chain.sign(chip_report(spec())), e, {}, o);
}

TEST(AmdCrl, CrlWithoutOurCertificatesPasses) {
  const LocalAmdChain chain(spec());
  const VerifyResult r = verify_with_crl(chain, chain.ark_crl({}));
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST(AmdCrl, RevokedAskIsCertificateRevoked) {
  const LocalAmdChain chain(spec());
  const VerifyResult r = verify_with_crl(chain, chain.ark_crl({chain.ask_der}));
  EXPECT_EQ(r.failed_step, "certificate_revoked");
  EXPECT_NE(r.message.find("SEV-Local"), std::string::npos) << r.message;
}

TEST(AmdCrl, RevokedVcekIsCertificateRevoked) {
  const LocalAmdChain chain(spec());
  EXPECT_EQ(verify_with_crl(chain, chain.ark_crl({chain.vcek_der})).failed_step, "certificate_revoked");
}

TEST(AmdCrl, CrlNotSignedByTheArkIsCollateralInvalid) {
  const LocalAmdChain chain(spec());
  const VerifyResult r = verify_with_crl(chain, chain.ark_crl({}, 30, /*signer_is_ask=*/true));
  EXPECT_EQ(r.failed_step, "collateral_invalid");
}

TEST(AmdCrl, CrlOfAnotherArkIsCollateralInvalid) {
  const LocalAmdChain chain(spec());
  const LocalAmdChain other(spec(), {"Other AMD", "ARK-Other", "SEV-Other"});
  EXPECT_EQ(verify_with_crl(chain, other.ark_crl({})).failed_step, "collateral_invalid");
  // Same names, other key: the signature does not verify.
  const LocalAmdChain twin(spec());
  EXPECT_EQ(verify_with_crl(chain, twin.ark_crl({})).failed_step, "collateral_invalid");
}

TEST(AmdCrl, CrlPastItsNextUpdateIsCollateralExpired) {
  const LocalAmdChain chain(spec());
  EXPECT_EQ(verify_with_crl(chain, chain.ark_crl({}, -1)).failed_step, "collateral_expired");
}

TEST(AmdCrl, GarbageCrlIsCollateralInvalid) {
  const LocalAmdChain chain(spec());
  EXPECT_EQ(verify_with_crl(chain, {0x30, 0x03, 0x01, 0x02, 0x03}).failed_step, "collateral_invalid");
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp
