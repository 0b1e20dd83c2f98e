// Reports built with serialize_report and signed by a locally generated key hierarchy: the debug policy
// bit, TCB and chip binding, VLEK-signed reports, and the Turin TCB layout.
#include <gtest/gtest.h>

#include "local_amd_chain.h"
#include "verify/sev_snp/sev_snp_verify.h"

namespace a3s::power::verify::sev_snp {
namespace {

using testing::LeafSpec;
using testing::LocalAmdChain;

ChipId test_chip_id() {
  ChipId id{};
  for (size_t i = 0; i < id.size(); ++i) id[i] = static_cast<uint8_t>(0xA0 + i);
  return id;
}

// A Milan v5 report whose REPORTED_TCB and CHIP_ID match LeafSpec's defaults.
Report milan_report(const LeafSpec& spec) {
  Report r;
  r.version = 5;
  r.vmpl = 0;
  r.cpuid_fam_id = 0x19;
  r.cpuid_mod_id = 0x01;
  r.reported_tcb = encode_tcb(spec.tcb, TcbLayout::kMilanGenoa);
  r.current_tcb = r.committed_tcb = r.launch_tcb = r.reported_tcb;
  r.chip_id = test_chip_id();
  r.measurement.fill(0x42);
  r.report_data.fill(0x17);
  return r;
}

LeafSpec vcek_spec() {
  LeafSpec spec;
  const ChipId id = test_chip_id();
  spec.hw_id.assign(id.begin(), id.end());
  return spec;
}

VerifyResult verify(const LocalAmdChain& chain, const std::vector<uint8_t>& report,
                    const Policy& policy = {}) {
  VerifyOptions o;
  o.anchors = chain.anchors();
  return verify_report(report, {chain.vcek_pem, {}}, policy, o);
}

TEST(LocalChain, SignedReportVerifies) {
  const LeafSpec spec = vcek_spec();
  const LocalAmdChain chain(spec);
  const VerifyResult r = verify(chain, chain.sign(milan_report(spec)));
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  // The chain is also accepted when the evidence carries it (ASK then ARK).
  VerifyOptions o;
  o.anchors = TrustAnchors{{chain.ark_pem}, {}};
  EXPECT_TRUE(
      verify_report(chain.sign(milan_report(spec)), {chain.vcek_pem, chain.ask_pem + chain.ark_pem}, {}, o)
          .accepted);
}

TEST(LocalChain, DebugPolicyBitIsDebugEnabled) {
  const LeafSpec spec = vcek_spec();
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  report.policy |= policy_bits::kDebug;
  const VerifyResult r = verify(chain, chain.sign(report));
  EXPECT_FALSE(r.accepted);
  EXPECT_EQ(r.failed_step, "debug_enabled");
}

TEST(LocalChain, ReportedTcbMustEqualTheCertificateTcb) {
  const LeafSpec spec = vcek_spec();
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  TcbVersion other = spec.tcb;
  other.snp += 1;
  report.reported_tcb = encode_tcb(other, TcbLayout::kMilanGenoa);
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "tcb_mismatch");
  // CURRENT_TCB is not what the VCEK is issued for: a different current TCB is fine.
  report = milan_report(spec);
  report.current_tcb = encode_tcb(other, TcbLayout::kMilanGenoa);
  EXPECT_TRUE(verify(chain, chain.sign(report)).accepted);
}

TEST(LocalChain, ChipIdMustEqualHwIdUnlessMasked) {
  const LeafSpec spec = vcek_spec();
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  report.chip_id[63] ^= 1;
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "tcb_mismatch");
  report.chip_id = {};
  report.mask_chip_key = true;
  const VerifyResult r = verify(chain, chain.sign(report));
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
}

TEST(LocalChain, ProductNameMustMatchTheCpuidFamily) {
  LeafSpec spec = vcek_spec();
  spec.product_name = "Genoa";
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  report.cpuid_mod_id = 0x11;  // a Genoa model
  EXPECT_TRUE(verify(chain, chain.sign(report)).accepted);
  // A Milan model with a Genoa certificate: a certificate of another product.
  report.cpuid_mod_id = 0x01;
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "chain_invalid");
  report.cpuid_fam_id = 0x17;
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "tcb_mismatch");
}

TEST(LocalChain, MinimumTcbAndPolicyChecks) {
  const LeafSpec spec = vcek_spec();
  const LocalAmdChain chain(spec);
  const auto bytes = chain.sign(milan_report(spec));
  Policy p;
  p.minimum_tcb = spec.tcb;
  p.minimum_tcb->microcode += 1;
  EXPECT_EQ(verify(chain, bytes, p).failed_step, "tcb_out_of_date");
  p = {};
  Measurement m;
  m.fill(0x42);
  p.expected_measurements = {m};
  ReportData d;
  d.fill(0x17);
  p.expected_report_data = d;
  EXPECT_TRUE(verify(chain, bytes, p).accepted);
  d[63] = 0;
  p.expected_report_data = d;
  EXPECT_EQ(verify(chain, bytes, p).failed_step, "report_data_mismatch");
}

TEST(LocalChain, VlekSignedReport) {
  LeafSpec spec;  // no hwID: a VLEK
  spec.subject_cn = "SEV-VLEK";
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  report.signing_key = static_cast<uint8_t>(SigningKey::kVlek);
  const VerifyResult r = verify(chain, chain.sign(report));
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  // A report that claims a VCEK signed it cannot be verified with a VLEK certificate, and vice versa.
  report.signing_key = static_cast<uint8_t>(SigningKey::kVcek);
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "signature_invalid");
  const LeafSpec vcek = vcek_spec();
  const LocalAmdChain vcek_chain(vcek);
  Report vlek_claim = milan_report(vcek);
  vlek_claim.signing_key = static_cast<uint8_t>(SigningKey::kVlek);
  EXPECT_EQ(verify(vcek_chain, vcek_chain.sign(vlek_claim)).failed_step, "signature_invalid");
  vlek_claim.signing_key = static_cast<uint8_t>(SigningKey::kNone);
  EXPECT_EQ(verify(vcek_chain, vcek_chain.sign(vlek_claim)).failed_step, "signature_invalid");
}

TEST(LocalChain, UnknownSignatureAlgorithmIsSignatureInvalid) {
  const LeafSpec spec = vcek_spec();
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  report.signature_algo = 2;
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "signature_invalid");
}

TEST(LocalChain, TurinLayoutBindsTheFmcSpl) {
  LeafSpec spec;
  spec.tcb = TcbVersion{2, 3, 0, 5, 0x44};
  spec.fmc_extension = true;
  spec.product_name = "Turin-C1";
  const ChipId id = test_chip_id();
  spec.hw_id.assign(id.begin(), id.begin() + 8);  // Turin VCEKs carry an 8-byte hwID
  const LocalAmdChain chain(spec);
  Report report = milan_report(spec);
  report.cpuid_fam_id = kFamilyTurin;
  report.reported_tcb = encode_tcb(spec.tcb, TcbLayout::kTurin);
  const VerifyResult r = verify(chain, chain.sign(report));
  EXPECT_TRUE(r.accepted) << r.failed_step << ": " << r.message;
  // A Milan CPUID with this Turin certificate names another product (and the bytes read in the Milan
  // layout would not match either).
  report.cpuid_fam_id = 0x19;
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "chain_invalid");
  // A version 2 report has no CPUID: read in the Milan layout, its TCB does not match the certificate's.
  report.version = 2;
  EXPECT_EQ(verify(chain, chain.sign(report)).failed_step, "tcb_mismatch");
  report.version = 5;
  // A Turin report with a certificate that has no fmcSPL fails closed.
  LeafSpec no_fmc = spec;
  no_fmc.fmc_extension = false;
  const LocalAmdChain chain2(no_fmc);
  report.cpuid_fam_id = kFamilyTurin;
  EXPECT_EQ(verify(chain2, chain2.sign(report)).failed_step, "tcb_mismatch");
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp
