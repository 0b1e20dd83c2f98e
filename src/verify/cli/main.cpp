// a3s-power-verify: client-side verification of A3S Power attestation evidence.
//
//   a3s-power-verify report --file EVIDENCE [...]   offline: a raw SEV-SNP report or TDX quote
//
// Exit statuses: exit_status.h (0 accepted, 3 rejected, 2 usage / IO error, 1 internal). Errors are
// one line on stderr. Each mode is a subcommand (or, for the live mode, top-level flags) added here.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "a3s/power/error.h"
#include "verify/cli/exit_status.h"
#include "verify/cli/report_command.h"

int main(int argc, char** argv) {
  using namespace a3s::power;
  using namespace a3s::power::verify::cli;
  CLI::App app{"a3s-power-verify: verify A3S Power attestation evidence", "a3s-power-verify"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(A3S_POWER_VERSION));
  ReportArgs report_args;
  CLI::App* report = add_report_command(app, report_args);
  try {
    app.parse(argc, argv);
    if (report->parsed()) return run_report(report_args);
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help / --version
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitUsage;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return exit_status_for(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return kExitInternal;
  }
}
