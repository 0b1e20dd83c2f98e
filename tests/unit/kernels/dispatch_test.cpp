// ISA selection: names, support, forcing, and that forcing an unsupported ISA fails cleanly.
#include <fstream>
#include <string>

#include "a3s/power/error.h"
#include "kernel_test_util.h"

namespace a3s::power::kernels::test {
namespace {

TEST(Dispatch, NamesRoundTrip) {
  for (Isa isa : all_isas()) EXPECT_EQ(parse_isa(isa_name(isa)), isa);
  EXPECT_EQ(parse_isa("avx512"), Isa::Avx512);
  EXPECT_FALSE(parse_isa("avx512f").has_value());
  EXPECT_FALSE(parse_isa("").has_value());
  EXPECT_FALSE(parse_isa("AVX2").has_value());
}

TEST(Dispatch, ScalarAlwaysSupportedAndBestIsSupported) {
  EXPECT_TRUE(isa_supported(Isa::Scalar));
  EXPECT_TRUE(isa_supported(best_isa()));
  EXPECT_TRUE(isa_supported(active_isa()));
}

TEST(Dispatch, ForceSwitchesAndRestores) {
  IsaGuard guard;
  for (Isa isa : supported_isas()) {
    force_isa(isa);
    EXPECT_EQ(active_isa(), isa);
  }
}

TEST(Dispatch, EnvironmentChoiceIsHonoured) {
  // The process started with whatever A3S_POWER_ISA said (unset: the best ISA); the active ISA must
  // agree with it. CTest also runs this test with A3S_POWER_ISA=scalar (dispatch_scalar_isa).
  const char* env = std::getenv("A3S_POWER_ISA");
  EXPECT_EQ(active_isa(), isa_for_environment(env));
  if (env != nullptr && std::string(env) == "scalar") {
    EXPECT_EQ(active_isa(), Isa::Scalar);
  }
}

TEST(Dispatch, EnvironmentValueSelection) {
  EXPECT_EQ(isa_for_environment(nullptr), best_isa());
  EXPECT_EQ(isa_for_environment("auto"), best_isa());
  EXPECT_EQ(isa_for_environment("bogus"), best_isa());
  EXPECT_EQ(isa_for_environment(""), best_isa());
  EXPECT_EQ(isa_for_environment("scalar"), Isa::Scalar);
  EXPECT_EQ(isa_for_environment("avx2"), isa_supported(Isa::Avx2) ? Isa::Avx2 : best_isa());
  EXPECT_EQ(isa_for_environment("avx512"), isa_supported(Isa::Avx512) ? Isa::Avx512 : best_isa());
}

#if defined(__x86_64__)
TEST(Dispatch, AnEnvironmentValueThatIsNotTakenGetsAWarning) {
  EXPECT_FALSE(isa_environment_warning(nullptr));
  EXPECT_FALSE(isa_environment_warning(""));
  EXPECT_FALSE(isa_environment_warning("auto"));
  EXPECT_FALSE(isa_environment_warning("scalar"));
  EXPECT_EQ(isa_environment_warning("avx2").has_value(), !isa_supported(Isa::Avx2));
  EXPECT_EQ(isa_environment_warning("avx512").has_value(), !isa_supported(Isa::Avx512));
  const auto upper = isa_environment_warning("AVX2");
  ASSERT_TRUE(upper);
  EXPECT_EQ(*upper, std::string("A3S_POWER_ISA=\"AVX2\" is not an instruction set (auto, scalar, avx2, avxvnni, avx512); using ") +
                        isa_name(best_isa()));
  const auto odd = isa_environment_warning("a\nb\x1b[31m0123456789012345678901234567890123456789");
  ASSERT_TRUE(odd);
  EXPECT_NE(odd->find("\"a?b?[31m012345678901234567890123\""), std::string::npos) << *odd;
  EXPECT_EQ(odd->find('\n'), std::string::npos);
  EXPECT_EQ(isa_environment_warning("\"x\\")->substr(0, 20), "A3S_POWER_ISA=\"?x?\" ");
}

TEST(Dispatch, Avx2DetectedOnThisCpu) {
  __builtin_cpu_init();
  const bool cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
  EXPECT_EQ(isa_supported(Isa::Avx2), cpu);
}

TEST(Dispatch, Avx512DetectedOnThisCpu) {
  __builtin_cpu_init();
  const bool cpu = isa_supported(Isa::Avx2) && __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512vnni");
  EXPECT_EQ(isa_supported(Isa::Avx512), cpu);
  if (!cpu) GTEST_SKIP() << "CPU without AVX-512 F/BW/VL/VNNI: the avx512 path is not tested here";
  // An ISA without its own kernel for a type keeps the next slower path's kernel (here Q2_K: AVX2).
  IsaGuard guard(Isa::Avx512);
  EXPECT_EQ(active_isa(), Isa::Avx512);
}
#endif

#if defined(__x86_64__)
TEST(Dispatch, AvxVnniDetectedOnThisCpu) {
  __builtin_cpu_init();
  const bool cpu = isa_supported(Isa::Avx2) && __builtin_cpu_supports("avxvnni");
  EXPECT_EQ(isa_supported(Isa::AvxVnni), cpu);
  if (!cpu) GTEST_SKIP() << "CPU without AVX-VNNI: the avxvnni path is not tested here";
  IsaGuard guard(Isa::AvxVnni);
  EXPECT_EQ(active_isa(), Isa::AvxVnni);
  // Ranked below avx512: where both are supported, the best path is avx512.
  if (isa_supported(Isa::Avx512)) {
    EXPECT_EQ(best_isa(), Isa::Avx512);
  }
}
#endif

TEST(Dispatch, ForcingUnsupportedIsaThrows) {
  IsaGuard guard;
  const Isa before = active_isa();
  try {
    force_isa(static_cast<Isa>(42));  // not an instruction set this build knows
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
  }
  EXPECT_EQ(active_isa(), before);
  EXPECT_FALSE(isa_supported(static_cast<Isa>(42)));
  for (Isa isa : {Isa::Avx2, Isa::AvxVnni, Isa::Avx512}) {
    if (!isa_supported(isa)) {
      EXPECT_THROW(force_isa(isa), Error);
    }
  }
}

TEST(Dispatch, PanelReadAheadFollowsTheCpuVendor) {
  EXPECT_EQ(panel_read_ahead_for("GenuineIntel"), PrefetchInto::kL2);
  EXPECT_EQ(panel_read_ahead_for("AuthenticAMD"), PrefetchInto::kL1);
  EXPECT_EQ(panel_read_ahead_for("HygonGenuine"), PrefetchInto::kL1);
  EXPECT_EQ(panel_read_ahead_for("GenuineIntel "), PrefetchInto::kL1);  // the whole string, no prefix
  EXPECT_EQ(panel_read_ahead_for("Genuine"), PrefetchInto::kL1);
  EXPECT_EQ(panel_read_ahead_for(""), PrefetchInto::kL1);
  EXPECT_EQ(panel_read_ahead_for(nullptr), PrefetchInto::kL1);
}

TEST(Dispatch, PanelReadAheadOfThisCpuIsTheRuleForItsVendor) {
  // Linux reports the same CPUID leaf 0 string as vendor_id in /proc/cpuinfo.
  std::ifstream f("/proc/cpuinfo");
  std::string line, vendor;
  while (std::getline(f, line)) {
    const size_t colon = line.find(':');
    if (line.rfind("vendor_id", 0) == 0 && colon != std::string::npos) {
      vendor = line.substr(colon + 1);
      vendor.erase(0, vendor.find_first_not_of(" \t"));
      break;
    }
  }
  if (vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo on this machine";
  // Where the AVX2 path is not built or usable, CPUID is not read and the rule is not applied.
  if (!isa_supported(Isa::Avx2)) GTEST_SKIP() << "no AVX2 path here: the panel kernels' read-ahead is not chosen";
  EXPECT_EQ(panel_read_ahead(), panel_read_ahead_for(vendor.c_str())) << "vendor " << vendor;
}

}  // namespace
}  // namespace a3s::power::kernels::test
