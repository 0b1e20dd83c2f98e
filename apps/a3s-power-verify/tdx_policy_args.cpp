#include "a3s-power-verify/tdx_policy_args.h"

#include <algorithm>
#include <cctype>

#include "a3s/power/error.h"
#include "a3s-power-verify/hex_arg.h"
#include "a3s-power-verify/non_empty_arg.h"

namespace a3s::power::verify::cli {
namespace {

Measurement parse_rtmr(std::string_view text, size_t& index) {
  const std::string usage = "--expected-rtmr must be IDX=HEX with IDX 0..3 and 96 hex digits (48 bytes)";
  if (text.size() < 2 || text[1] != '=' || text[0] < '0' || text[0] > '3')
    throw Error(codes::kInvalidArgument, usage);
  index = static_cast<size_t>(text[0] - '0');
  return parse_hex_array<48>(text.substr(2), "--expected-rtmr " + std::string(1, text[0]));
}

std::string advisory_id(const std::string& text) {
  const bool plain = !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (!plain)
    throw Error(codes::kInvalidArgument,
                "--reject-advisory must be an advisory ID such as INTEL-SA-00615 (1..64 characters of A-Z, "
                "0-9, '.', '_', '-')");
  return text;
}

}  // namespace

void add_tdx_policy_options(CLI::App& cmd, TdxPolicyArgs& a) {
  const CLI::Validator& kNonEmpty = non_empty();
  cmd.add_option("--expected-rtmr", a.expected_rtmr,
                 "TDX: RTMR IDX (0..3) must equal HEX (96 hex digits), as IDX=HEX; repeatable (per index: any of)");
  cmd.add_option("--expected-mrconfigid", a.expected_mr_config_id, "TDX: MRCONFIGID, 96 hex digits")
      ->check(kNonEmpty);
  cmd.add_option("--expected-mrowner", a.expected_mr_owner, "TDX: MROWNER, 96 hex digits")->check(kNonEmpty);
  cmd.add_option("--reject-advisory", a.reject_advisory,
                 "TDX: refuse a TCB level that lists this advisory ID (e.g. INTEL-SA-00615); repeatable");
  cmd.add_flag("--reject-advisory-status", a.reject_advisory_status,
               "TDX: refuse the advisory TCB statuses SWHardeningNeeded, ConfigurationNeeded and "
               "ConfigurationAndSWHardeningNeeded");
}

TdxPolicy parse_tdx_policy(const TdxPolicyArgs& a, bool no_tcb_check) {
  TdxPolicy p;
  for (const std::string& item : a.expected_rtmr) {
    size_t index = 0;
    const Measurement value = parse_rtmr(item, index);
    p.expected_rtmr[index].push_back(value);
  }
  if (!a.expected_mr_config_id.empty())
    p.expected_mr_config_id = parse_hex_array<48>(a.expected_mr_config_id, "--expected-mrconfigid");
  if (!a.expected_mr_owner.empty())
    p.expected_mr_owner = parse_hex_array<48>(a.expected_mr_owner, "--expected-mrowner");
  for (const std::string& id : a.reject_advisory) p.rejected_advisory_ids.push_back(advisory_id(id));
  p.reject_advisory_statuses = a.reject_advisory_status;
  if (no_tcb_check && (!p.rejected_advisory_ids.empty() || p.reject_advisory_statuses))
    throw Error(codes::kInvalidArgument,
                "--reject-advisory / --reject-advisory-status need the TCB check; they contradict --no-tcb-check");
  return p;
}

}  // namespace a3s::power::verify::cli
