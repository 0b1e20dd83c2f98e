// Live attestation: `a3s-power-verify --url URL --model NAME --expected-hash sha256:HEX [...]` (also
// as the explicit subcommand `a3s-power-verify attest --url ...`). Sends a fresh nonce to the
// server's GET /v1/attestation, verifies the answer (a3s/power/verify_attestation.h) and prints one
// line per check. With --ratls (docs/ra-tls.md) a handshake-only TLS connection to the server's RA-TLS
// port comes first: its certificate's evidence must bind the certificate's key
// (verify_ratls_certificate) before anything is sent; then the request (with the API key) goes over a
// second connection pinned to that key, and the nonce flow's claims must bind the same key
// (AttestationPolicy::tls_spki_sha256). Accepted, the key's pin is printed (hex and curl's base64).
// --allow-simulated is a usage error for a URL whose host is not loopback; --require-policy names the
// signed TEE policy required (AttestationPolicy::require_tee_policy). With --online the endorsements the answer's evidence needs and
// neither the answer nor the flags give (SEV-SNP: AMD's CRL, a VCEK when the certificate table has
// none; TDX: the collateral from Intel PCS) are fetched as `report --online` does (online_args.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "a3s/power/verify_attestation.h"
#include "a3s-power-verify/online_args.h"
#include "a3s-power-verify/tdx_policy_args.h"
#include "a3s-power-verify/snp_guest_args.h"

namespace a3s::power::verify::cli {

struct AttestArgs {
  std::string url;                                 // --url URL (required)
  std::string model;                               // --model NAME (required)
  std::string expected_hash;                       // --expected-hash sha256:HEX (required)
  std::vector<std::string> expected_measurements;  // --expected-measurement HEX, repeatable: any of
  std::string nonce;                               // --nonce HEX (default: 32 fresh random bytes)
  std::string api_key;                             // --api-key K (default: $A3S_POWER_API_KEY)
  bool allow_simulated = false;                    // --allow-simulated (loopback URLs only)
  std::string require_policy;                      // --require-policy strict|development (default: strict,
                                                   // either with --allow-simulated)
  std::string format = "text";                     // --format text|json
  std::string vcek;                                // --vcek F (SEV-SNP: instead of the certificate table's)
  std::string collateral;                          // --collateral DIR (TDX)
  std::string root;                                // --root F
  bool no_tcb_check = false;                       // --no-tcb-check
  std::string at;                                  // --at TIME
  std::string min_tcb;                             // --min-tcb bl=N,tee=N,snp=N,ucode=N[,fmc=N] (SEV-SNP)
  TdxPolicyArgs tdx;                               // --expected-rtmr, --expected-mrconfigid, ... (TDX)
  SnpGuestArgs snp_guest;                          // --vmpl N, --allow-migration-agent (SEV-SNP)
  OnlineArgs online;                               // --online [--kds-url B] [--pcs-url B] [--cache-dir D]
  bool ratls = false;                              // --ratls: https URL of the RA-TLS port (docs/ra-tls.md)
};

// Adds the live-mode flags to `cmd` (the root command or the `attest` subcommand).
void add_attest_options(CLI::App& cmd, AttestArgs& args);
// Adds the expectation flags only (what the attestation must show: --model, --expected-hash,
// --expected-measurement, --allow-simulated, --require-policy, --format, the evidence options,
// --online ...): every live-mode flag except --url, --nonce, --api-key and --ratls. The `receipt`
// subcommand takes these.
void add_expectation_options(CLI::App& cmd, AttestArgs& args);

// The AttestationPolicy of the expectation flags. Throws Error "invalid_argument" / "io_error" for a
// malformed value or an unreadable file.
AttestationPolicy policy_from(const AttestArgs& args);

// --online: fetches what the attestation body's evidence needs into `policy` (nothing without --online).
OnlineUse add_live_endorsements(const OnlineArgs& online, const std::string& body, AttestationPolicy& policy);

// True when any live-mode flag was given on `cmd`.
bool attest_options_given(const CLI::App& cmd);

// Fetches, verifies and prints (stdout; on rejection also one line on stderr); returns the exit status
// (exit_status.h). Throws a3s::power::Error "invalid_argument" / "io_error" for usage errors, a
// server that cannot be reached or answers with an HTTP error (exit 2).
int run_attest(const AttestArgs& args);

}  // namespace a3s::power::verify::cli
