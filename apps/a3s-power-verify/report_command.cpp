#include "a3s-power-verify/report_command.h"

#include <cstdio>

#include "a3s/power/error.h"
#include "a3s-power-verify/exit_status.h"
#include "a3s-power-verify/hex_arg.h"
#include "a3s-power-verify/min_tcb_arg.h"
#include "a3s-power-verify/non_empty_arg.h"
#include "a3s-power-verify/read_file.h"
#include "a3s-power-verify/report_output.h"
#include "a3s-power-verify/time_arg.h"

namespace a3s::power::verify::cli {

CLI::App* add_report_command(CLI::App& app, ReportArgs& a) {
  const CLI::Validator& kNonEmpty = non_empty();
  CLI::App* cmd = app.add_subcommand("report", "Verify a raw SEV-SNP report or TDX quote file (offline unless --online)");
  cmd->add_option("--file", a.file, "Evidence: a raw SEV-SNP report or TDX quote (type detected)")
      ->required()
      ->check(kNonEmpty);
  cmd->add_option("--vcek", a.vcek, "SEV-SNP: VCEK (or VLEK) certificate, PEM or DER")
      ->check(kNonEmpty);
  cmd->add_option("--cert-chain", a.cert_chain,
                  "SEV-SNP: ASK [+ ARK]; TDX: PCK certificate then its CA chain (PEM; repeatable, "
                  "concatenated in order)")
      ->check(kNonEmpty);
  cmd->add_option("--collateral", a.collateral,
                  "TDX: directory with tcbInfo.json, qeIdentity.json, tcbSignChain.pem [, CRLs]")
      ->check(kNonEmpty);
  cmd->add_option("--root", a.root,
                  "Trust this root (PEM) instead of the pinned AMD ARK / Intel SGX Root CA")
      ->check(kNonEmpty);
  cmd->add_option("--at", a.at,
                  "Check validity at this time (2025-09-01 or 2025-09-01T00:00:00Z); default now")
      ->check(kNonEmpty);
  cmd->add_option("--expected-measurement", a.expected_measurements,
                  "SNP MEASUREMENT / TDX MRTD, 96 hex digits (repeatable: any of)");
  cmd->add_option("--expected-report-data", a.expected_report_data, "report_data, 128 hex digits")
      ->check(kNonEmpty);
  cmd->add_option("--min-tcb", a.min_tcb, "SEV-SNP: minimum REPORTED_TCB, bl=N,tee=N,snp=N,ucode=N[,fmc=N]")
      ->check(kNonEmpty);
  cmd->add_flag("--no-tcb-check", a.no_tcb_check,
                "Verify signatures and certificate chains only (TCB status not checked; the TDX QE identity "
                "still is)");
  cmd->add_flag("--allow-simulated", a.allow_simulated,
                "SEV-SNP: accept a report whose chain is the simulated hierarchy's (labelled simulated; "
                "no hardware attests it)");
  add_tdx_policy_options(*cmd, a.tdx);
  add_snp_guest_options(*cmd, a.snp_guest);
  add_online_options(*cmd, a.online);
  cmd->add_option("--format", a.format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  return cmd;
}

int run_report(const ReportArgs& a) {
  EvidenceOptions opt;
  if (!a.vcek.empty()) opt.vcek = read_file_text(a.vcek, "--vcek");
  for (const auto& f : a.cert_chain) opt.cert_chain += read_file_text(f, "--cert-chain");
  opt.collateral_dir = a.collateral;
  if (!a.root.empty()) opt.root = read_file_text(a.root, "--root");
  if (!a.at.empty()) opt.at = parse_time(a.at);
  for (const auto& m : a.expected_measurements)
    opt.expected_measurements.push_back(parse_hex_array<48>(m, "--expected-measurement"));
  if (!a.expected_report_data.empty())
    opt.expected_report_data = parse_hex_array<64>(a.expected_report_data, "--expected-report-data");
  if (!a.min_tcb.empty()) opt.snp_minimum_tcb = parse_min_tcb(a.min_tcb);
  if (a.no_tcb_check && !a.min_tcb.empty())
    throw Error(codes::kInvalidArgument, "--min-tcb and --no-tcb-check contradict each other; give one");
  opt.no_tcb_check = a.no_tcb_check;
  opt.allow_simulated = a.allow_simulated;
  opt.tdx = parse_tdx_policy(a.tdx, a.no_tcb_check);
  opt.snp_vmpl = parse_vmpl(a.snp_guest.vmpl);
  opt.snp_allow_migration_agent = a.snp_guest.allow_migration_agent;
  const std::vector<uint8_t> evidence = read_file_bytes(a.file, "--file");
  const OnlineUse online = apply_online(a.online, evidence, opt);

  const Report report = verify_evidence(evidence, opt);
  print_verdict(a.format, report_json(report), report_text(report));
  if (report.accepted) return kExitAccepted;
  online.forget_after(report.failed_step);
  std::fprintf(stderr, "rejected: %s: %s\n", report.failed_step.c_str(), report.message.c_str());
  return kExitRejected;
}

}  // namespace a3s::power::verify::cli
