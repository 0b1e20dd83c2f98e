// The TDX policy flags of `a3s-power-verify report` and of the live mode (TdxPolicy, a3s/power/verify.h):
//   --expected-rtmr IDX=HEX     RTMR<IDX> (IDX 0..3) must equal HEX (96 hex digits); repeatable: several
//                               values for one index mean "any of", indexes are checked independently
//   --expected-mrconfigid HEX   MRCONFIGID must equal HEX (96 hex digits)
//   --expected-mrowner HEX      MROWNER must equal HEX (96 hex digits)
//   --reject-advisory ID        refuse a quote whose matching TCB level lists advisory ID
//                               (e.g. INTEL-SA-00615; case-insensitive); repeatable
//   --reject-advisory-status    refuse any advisory TCB status (SWHardeningNeeded, ConfigurationNeeded,
//                               ConfigurationAndSWHardeningNeeded); without it SWHardeningNeeded is
//                               accepted and its advisory IDs are shown
// The advisory flags need the TCB check, so they contradict --no-tcb-check (a usage error).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "a3s/power/verify.h"

namespace a3s::power::verify::cli {

struct TdxPolicyArgs {
  std::vector<std::string> expected_rtmr;    // --expected-rtmr IDX=HEX, repeatable
  std::string expected_mr_config_id;         // --expected-mrconfigid HEX
  std::string expected_mr_owner;             // --expected-mrowner HEX
  std::vector<std::string> reject_advisory;  // --reject-advisory ID, repeatable
  bool reject_advisory_status = false;       // --reject-advisory-status
};

// The flags' names (for commands that look up whether any of their flags was given).
inline constexpr const char* kTdxPolicyFlags[] = {"--expected-rtmr", "--expected-mrconfigid", "--expected-mrowner",
                                                  "--reject-advisory", "--reject-advisory-status"};

void add_tdx_policy_options(CLI::App& cmd, TdxPolicyArgs& args);

// The policy the flags give. Throws a3s::power::Error "invalid_argument" (exit 2) for a malformed
// value (naming the flag, not echoing the value), and for advisory flags together with
// `no_tcb_check`.
TdxPolicy parse_tdx_policy(const TdxPolicyArgs& args, bool no_tcb_check);

}  // namespace a3s::power::verify::cli
