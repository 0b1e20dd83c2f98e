#include "a3s-power-verify/attest_command.h"

#include <cstdio>
#include <cstdlib>

#include "a3s/power/error.h"
#include "a3s/power/verify_attestation.h"
#include "base/hex.h"
#include "http_client/http_client_built.h"
#include "http_client/server_error.h"
#include "http_client/server_url.h"
#include "a3s-power-verify/attest_output.h"
#include "a3s-power-verify/attestation_fetch.h"
#include "a3s-power-verify/exit_status.h"
#include "a3s-power-verify/hex_arg.h"
#include "a3s-power-verify/min_tcb_arg.h"
#include "a3s-power-verify/model_hash_arg.h"
#include "a3s-power-verify/non_empty_arg.h"
#include "a3s-power-verify/nonce_arg.h"
#include "a3s-power-verify/ratls_fetch.h"
#include "a3s-power-verify/read_file.h"
#include "a3s-power-verify/report_output.h"
#include "a3s-power-verify/time_arg.h"

namespace a3s::power::verify::cli {
namespace {

constexpr const char* kApiKeyEnv = "A3S_POWER_API_KEY";

// The live-mode flags, by name (attest_options_given looks them up).
constexpr const char* kFlags[] = {"--url",        "--model",   "--expected-hash",   "--expected-measurement",
                                  "--nonce",      "--api-key", "--allow-simulated", "--vcek",
                                  "--collateral", "--root",    "--no-tcb-check",    "--at",
                                  "--min-tcb",    "--format",  "--ratls",           "--online",
                                  "--kds-url",    "--pcs-url", "--cache-dir",       "--no-amd-crl",
                                  "--vmpl",       "--allow-migration-agent", "--require-policy"};

// RA-TLS: the peer certificate of a handshake-only connection is checked first (its evidence binds its
// key); only then does the request (with the API key) go out, on a second connection pinned to that key,
// and its answer must bind the same key. The certificate's evidence names the model the server attests
// by default, so its model is reported, not compared: the model asked for is checked by the nonce flow.
AttestationResult verify_over_ratls(const AttestArgs& a, AttestationPolicy policy, const Nonce& nonce,
                                    const std::string& api_key, OnlineUse& use, std::optional<Sha256>& pin) {
  const std::string certificate_der = fetch_ratls_certificate(a.url);
  // The server's endorsements apply to both evidences (the certificate's and the nonce flow's).
  if (const auto embedded = ratls_certificate_response(certificate_der))
    use = add_live_endorsements(a.online, *embedded, policy);
  AttestationPolicy certificate_policy = policy;
  certificate_policy.model.clear();
  AttestationResult certificate = verify_ratls_certificate(certificate_der, certificate_policy);
  if (!certificate.accepted) {
    for (auto& c : certificate.checks) c.name = "ratls_" + c.name;
    return certificate;
  }
  const std::optional<Sha256> spki = certificate_spki_sha256(certificate_der);
  if (!spki) throw Error(codes::kInternal, "the verified RA-TLS certificate's key cannot be hashed");
  const RatlsAttestation fetched = fetch_ratls_attestation({a.url, to_hex(nonce), a.model, api_key}, *spki);
  AttestationPolicy connection_policy = policy;
  // libcurl's pin held; the claims must bind this key (a certificate that does not parse fails closed).
  if (certificate_spki_sha256(fetched.certificate_der) != spki)
    throw Error(codes::kIo, "the RA-TLS connection's key is not the verified one");
  connection_policy.tls_spki_sha256 = spki;
  AttestationResult result = verify_attestation(fetched.body, nonce, connection_policy);
  result.checks.insert(result.checks.begin(),
                       AttestationCheck{"ratls_certificate", true,
                                        "the TLS certificate's evidence binds its key (SPKI SHA-256 " + to_hex(*spki) +
                                            ") and verified before the request was sent on a connection pinned to it"});
  if (result.accepted) pin = spki;
  return result;
}

}  // namespace

AttestationPolicy policy_from(const AttestArgs& a) {
  AttestationPolicy p;
  p.model = a.model;
  p.model_sha256 = parse_model_hash(a.expected_hash);
  for (const auto& m : a.expected_measurements)
    p.expected_measurements.push_back(parse_hex_array<48>(m, "--expected-measurement"));
  p.allow_simulated = a.allow_simulated;
  p.require_tee_policy = a.require_policy;
  if (!a.vcek.empty()) p.vcek = read_file_text(a.vcek, "--vcek");
  if (!a.root.empty()) p.root = read_file_text(a.root, "--root");
  p.collateral_dir = a.collateral;
  if (!a.at.empty()) p.at = parse_time(a.at);
  if (!a.min_tcb.empty()) p.snp_minimum_tcb = parse_min_tcb(a.min_tcb);
  if (a.no_tcb_check && !a.min_tcb.empty())
    throw Error(codes::kInvalidArgument, "--min-tcb and --no-tcb-check contradict each other; give one");
  p.no_tcb_check = a.no_tcb_check;
  p.tdx = parse_tdx_policy(a.tdx, a.no_tcb_check);
  p.snp_vmpl = parse_vmpl(a.snp_guest.vmpl);
  p.snp_allow_migration_agent = a.snp_guest.allow_migration_agent;
  return p;
}

// --online: fetches what the answer's evidence needs (online_args.h, the mechanism of `report
// --online`) into `policy`; what the flags or the answer give is kept. Nothing without --online, for
// simulated evidence or for an answer that does not parse (verify_attestation rejects it).
OnlineUse add_live_endorsements(const OnlineArgs& online, const std::string& body, AttestationPolicy& policy) {
  if (!online.online) return {};
  const std::optional<ResponseEvidence> ev = response_evidence(body);
  if (!ev) return {};
  EvidenceOptions probe;
  probe.vcek = policy.vcek.empty() ? ev->vcek : policy.vcek;
  probe.cert_chain = ev->cert_chain;
  probe.collateral_dir = policy.collateral_dir;
  probe.no_tcb_check = policy.no_tcb_check;
  OnlineUse use = apply_online(online, ev->evidence, probe);
  policy.snp_crl = probe.snp_crl;
  if (policy.vcek.empty() && ev->vcek.empty()) policy.vcek = probe.vcek;
  if (ev->cert_chain.empty()) policy.snp_cert_chain = probe.cert_chain;
  policy.tdx_collateral = probe.tdx_collateral;
  return use;
}

void add_attest_options(CLI::App& cmd, AttestArgs& a) {
  const CLI::Validator& kNonEmpty = non_empty();
  cmd.add_option("--url", a.url,
                 "Server to attest: http(s)://HOST[:PORT] (plain http to loopback only), or vsock://CID:PORT (RA-TLS "
                 "with --ratls; plain to CID 1 only)")
      ->check(kNonEmpty);
  cmd.add_option("--nonce", a.nonce, "Nonce to send, 64 hex digits (default: 32 fresh random bytes)")
      ->check(kNonEmpty);
  cmd.add_option("--api-key", a.api_key, "API key (default: $A3S_POWER_API_KEY); sent as a bearer token")
      ->check(kNonEmpty);
  cmd.add_flag("--ratls", a.ratls,
               "RA-TLS: --url is the server's https RA-TLS port (or its vsock port); the TLS certificate's evidence "
               "must bind the connection's key, and so must the nonce flow on that connection (no CA or host name "
               "check)");
  add_expectation_options(cmd, a);
}

void add_expectation_options(CLI::App& cmd, AttestArgs& a) {
  const CLI::Validator& kNonEmpty = non_empty();
  cmd.add_option("--model", a.model, "Model the server must attest to serving (claims.model.name)")
      ->check(kNonEmpty);
  cmd.add_option("--expected-hash", a.expected_hash,
                 "sha256:HEX of the model's plaintext GGUF (claims.model.sha256 must equal it)")
      ->check(kNonEmpty);
  cmd.add_option("--expected-measurement", a.expected_measurements,
                 "SNP MEASUREMENT / TDX MRTD, 96 hex digits (repeatable: any of)");
  cmd.add_flag("--allow-simulated", a.allow_simulated,
               "Accept a development server's simulated evidence (still checks its signature and chain); "
               "loopback URLs only");
  cmd.add_option("--require-policy", a.require_policy,
                 "The server's signed TEE policy must be this: strict or development (default: strict; with "
                 "--allow-simulated: either)")
      ->check(CLI::IsMember({"strict", "development"}));
  cmd.add_option("--format", a.format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  cmd.add_option(
         "--vcek", a.vcek,
         "SEV-SNP: verify with this VCEK (PEM or DER) instead of the one in the server's certificate table")
      ->check(kNonEmpty);
  cmd.add_option("--collateral", a.collateral,
                 "TDX: directory with tcbInfo.json, qeIdentity.json, tcbSignChain.pem [, CRLs]")
      ->check(kNonEmpty);
  cmd.add_option("--root", a.root, "Trust this root (PEM) instead of the pinned AMD ARK / Intel SGX Root CA")
      ->check(kNonEmpty);
  cmd.add_flag("--no-tcb-check", a.no_tcb_check,
               "Verify signatures and certificate chains only (TCB status not checked; the TDX QE identity "
               "still is)");
  cmd.add_option("--at", a.at,
                 "Check validity at this time (2025-09-01 or 2025-09-01T00:00:00Z); default now")
      ->check(kNonEmpty);
  cmd.add_option("--min-tcb", a.min_tcb, "SEV-SNP: minimum REPORTED_TCB, bl=N,tee=N,snp=N,ucode=N[,fmc=N]")
      ->check(kNonEmpty);
  add_tdx_policy_options(cmd, a.tdx);
  add_online_options(cmd, a.online);
  add_snp_guest_options(cmd, a.snp_guest);
}

bool attest_options_given(const CLI::App& cmd) {
  for (const char* flag : kFlags)
    if (cmd.get_option(flag)->count() > 0) return true;
  for (const char* flag : kTdxPolicyFlags)
    if (cmd.get_option(flag)->count() > 0) return true;
  return false;
}

int run_attest(const AttestArgs& a) {
  client::require_http_client("a3s-power-verify live verification (--url)");
  if (a.url.empty()) throw Error(codes::kInvalidArgument, "--url is required");
  if (a.model.empty()) throw Error(codes::kInvalidArgument, "--model is required");
  if (a.expected_hash.empty())
    throw Error(codes::kInvalidArgument, "--expected-hash sha256:HEX is required (the model's digest)");
  const client::ServerUrl url = client::ServerUrl::parse(a.url);
  if (a.ratls && url.scheme() != "https" && !url.is_vsock())
    throw Error(codes::kInvalidArgument,
                "--ratls needs an https:// URL (the server's RA-TLS port) or a vsock:// URL (its vsock port)");
  // A simulated response brings its own root: trusting it is only for a development server on this machine.
  if (a.allow_simulated && !url.is_local())
    throw Error(codes::kInvalidArgument,
                "--allow-simulated is only accepted for a loopback URL (127.0.0.0/8, ::1, localhost, vsock CID 1): "
                "simulated evidence brings its own root, so it proves nothing about a remote server");
  AttestationPolicy policy = policy_from(a);
  std::string api_key = a.api_key;
  if (api_key.empty()) {
    const char* env = std::getenv(kApiKeyEnv);
    if (env != nullptr) api_key = env;
  }
  const Nonce nonce = nonce_from(a.nonce);

  OnlineUse use;
  AttestationResult result;
  std::optional<Sha256> pin;  // RA-TLS: the verified key, printed once the whole attestation accepted
  if (a.ratls) {
    result = verify_over_ratls(a, policy, nonce, api_key, use, pin);
  } else {
    const std::string body = fetch_attestation({a.url, to_hex(nonce), a.model, api_key});
    use = add_live_endorsements(a.online, body, policy);
    result = verify_attestation(body, nonce, policy);
  }
  print_verdict(a.format, attestation_json(result, pin), attestation_text(result, pin));
  if (result.accepted) return kExitAccepted;
  use.forget_after(result.failed_step);
  std::fprintf(stderr, "rejected: %s: %s\n", result.failed_step.c_str(),
               client::one_line(result.message).c_str());
  return kExitRejected;
}

}  // namespace a3s::power::verify::cli
