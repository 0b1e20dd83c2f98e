// TCB_VERSION decoding in the Milan/Genoa and Turin layouts, and the minimum-TCB comparison.
#include "attestation/sev_snp/tcb_version.h"

#include <gtest/gtest.h>

namespace a3s::power::verify::sev_snp {
namespace {

TEST(TcbVersion, MilanGenoaLayout) {
  const uint64_t raw = 0xDE1B000000000004ull;  // the GCP report's REPORTED_TCB
  const TcbVersion t = decode_tcb(raw, TcbLayout::kMilanGenoa);
  EXPECT_EQ(t, (TcbVersion{0, 4, 0, 27, 222}));
  EXPECT_EQ(encode_tcb(t, TcbLayout::kMilanGenoa), raw);
  EXPECT_EQ(to_string(t, TcbLayout::kMilanGenoa), "bl=4 tee=0 snp=27 ucode=222");
}

TEST(TcbVersion, TurinLayoutHasFmcInByteZero) {
  const uint64_t raw = 0x5400000001020304ull;
  const TcbVersion t = decode_tcb(raw, TcbLayout::kTurin);
  EXPECT_EQ(t, (TcbVersion{4, 3, 2, 1, 0x54}));
  EXPECT_EQ(encode_tcb(t, TcbLayout::kTurin), raw);
  EXPECT_EQ(to_string(t, TcbLayout::kTurin), "fmc=4 bl=3 tee=2 snp=1 ucode=84");
}

TEST(TcbVersion, LayoutByReportVersionAndFamily) {
  EXPECT_EQ(tcb_layout_for(2, 0x1A), TcbLayout::kMilanGenoa);  // v2 carries no family
  EXPECT_EQ(tcb_layout_for(3, 0x19), TcbLayout::kMilanGenoa);
  EXPECT_EQ(tcb_layout_for(3, 0x1A), TcbLayout::kTurin);
  EXPECT_EQ(tcb_layout_for(5, 0x1A), TcbLayout::kTurin);
}

TEST(TcbVersion, AtLeastComparesEveryComponent) {
  const TcbVersion t{0, 4, 0, 27, 222};
  EXPECT_TRUE(tcb_at_least(t, t));
  EXPECT_TRUE(tcb_at_least(t, TcbVersion{0, 3, 0, 20, 200}));
  EXPECT_FALSE(tcb_at_least(t, TcbVersion{0, 4, 0, 28, 0}));   // newer SNP firmware required
  EXPECT_FALSE(tcb_at_least(t, TcbVersion{0, 0, 0, 0, 223}));  // newer microcode required
  EXPECT_FALSE(tcb_at_least(t, TcbVersion{1, 0, 0, 0, 0}));    // FMC (Turin) required
}

}  // namespace
}  // namespace a3s::power::verify::sev_snp
