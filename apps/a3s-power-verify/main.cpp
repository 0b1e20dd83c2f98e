// a3s-power-verify: client-side verification of A3S Power attestation evidence.
//
//   a3s-power-verify --url URL --model NAME --expected-hash sha256:HEX [...]
//                                                    live: a server's GET /v1/attestation, fresh nonce
//   a3s-power-verify attest --url URL ...            the same, as an explicit subcommand
//   a3s-power-verify report --file EVIDENCE [...]    offline: a raw SEV-SNP report or TDX quote
//   a3s-power-verify receipt --attestation F --receipt F [--response F] [...]
//                                                    offline: a response's signed receipt
//
// Exit statuses: exit_status.h (0 accepted, 3 rejected, 2 usage / IO / HTTP error, 1 internal). Errors
// are one line on stderr.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "a3s/power/error.h"
#include "base/build_info.h"
#include "a3s-power-verify/attest_command.h"
#include "a3s-power-verify/exit_status.h"
#include "a3s-power-verify/receipt_command.h"
#include "a3s-power-verify/report_command.h"

int main(int argc, char** argv) {
  using namespace a3s::power;
  using namespace a3s::power::verify::cli;
  CLI::App app{"a3s-power-verify: verify A3S Power attestation evidence", "a3s-power-verify"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", version_text("a3s-power-verify"));
  AttestArgs live_args, attest_args;
  add_attest_options(app, live_args);
  CLI::App* attest = app.add_subcommand(
      "attest", "Verify a server's live attestation (the same flags as without a subcommand)");
  add_attest_options(*attest, attest_args);
  ReportArgs report_args;
  CLI::App* report = add_report_command(app, report_args);
  ReceiptArgs receipt_args;
  CLI::App* receipt = add_receipt_command(app, receipt_args);
  try {
    app.parse(argc, argv);
    const bool live = attest_options_given(app);
    if (live && (report->parsed() || attest->parsed() || receipt->parsed()))
      throw Error(codes::kInvalidArgument,
                  "live-mode flags go after `attest` or without a subcommand, not both");
    if (report->parsed()) return run_report(report_args);
    if (receipt->parsed()) return run_receipt(receipt_args);
    if (attest->parsed()) return run_attest(attest_args);
    if (live) return run_attest(live_args);
    throw Error(
        codes::kInvalidArgument,
        "nothing to verify: give --url URL --model NAME --expected-hash sha256:HEX, `report --file "
        "EVIDENCE` or `receipt --attestation FILE --receipt FILE` (--help lists the flags)");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help / --version
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitUsage;
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return exit_status_for(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return kExitInternal;
  }
}
