// `a3s-power-verify report`: offline verification of a raw SEV-SNP report or TDX quote file.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "a3s-power-verify/online_args.h"
#include "a3s-power-verify/tdx_policy_args.h"
#include "a3s-power-verify/snp_guest_args.h"

namespace a3s::power::verify::cli {

struct ReportArgs {
  std::string file;                                // --file EVIDENCE (required)
  std::string vcek;                                // --vcek F (SEV-SNP)
  std::vector<std::string> cert_chain;             // --cert-chain F, repeatable: concatenated in order
  std::string collateral;                          // --collateral DIR (TDX)
  std::string root;                                // --root F
  std::string at;                                  // --at TIME
  std::vector<std::string> expected_measurements;  // --expected-measurement HEX, repeatable: any of
  std::string expected_report_data;                // --expected-report-data HEX
  std::string min_tcb;                             // --min-tcb bl=N,tee=N,snp=N,ucode=N[,fmc=N] (SEV-SNP)
  bool no_tcb_check = false;                       // --no-tcb-check
  bool allow_simulated = false;                    // --allow-simulated: accept (labelled) simulated evidence
  SnpGuestArgs snp_guest;                          // --vmpl N, --allow-migration-agent (SEV-SNP)
  std::string format = "text";                     // --format text|json
  TdxPolicyArgs tdx;                               // --expected-rtmr, --expected-mrconfigid, ... (TDX)
  OnlineArgs online;                               // --online [--kds-url B] [--pcs-url B] [--cache-dir D]
};

// Adds the subcommand to `app`; the parsed flags land in `args`.
CLI::App* add_report_command(CLI::App& app, ReportArgs& args);

// Reads the files, verifies, prints the report (stdout; on rejection also one line on stderr) and
// returns the exit status (exit_status.h). Throws a3s::power::Error for usage and IO errors.
int run_report(const ReportArgs& args);

}  // namespace a3s::power::verify::cli
