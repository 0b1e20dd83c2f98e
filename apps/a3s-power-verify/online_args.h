// The online-mode flags of `a3s-power-verify report`:
//   --online          fetch missing endorsements (SEV-SNP VCEK from AMD KDS, TDX collateral from Intel
//                     PCS); off by default so that a verification is reproducible from its files alone
//   --kds-url BASE    AMD KDS base URL (default https://kdsintf.amd.com; a mirror, or a loopback test
//                     server over plain http)
//   --pcs-url BASE    Intel PCS base URL (default https://api.trustedservices.intel.com)
//   --no-amd-crl      SEV-SNP: do not fetch AMD's CRL (ASK / VCEK revocation then not checked; the result
//                     lists "crl" as skipped)
//   --cache-dir DIR   endorsement cache (default $XDG_CACHE_HOME/a3s-power-verify, else
//                     ~/.cache/a3s-power-verify)
// The URL and cache flags need --online. See src/verify/online/online_endorsements.h.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "a3s/power/verify.h"
#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify::cli {

struct OnlineArgs {
  bool online = false;
  std::string kds_url;
  std::string pcs_url;
  std::string cache_dir;
  bool no_amd_crl = false;
};

void add_online_options(CLI::App& cmd, OnlineArgs& args);

// The cache entries an online run used. After a rejection at a step that a bad endorsement can cause
// (signature_invalid, chain_invalid, collateral_invalid) they are removed, so that a bad answer (a
// mirror's wrong certificate) is fetched again next time instead of failing for ever; other
// rejections (expired collateral, TCB or policy results) keep them.
struct OnlineUse {
  std::string cache_dir;
  std::vector<std::string> urls;
  void forget_after(const std::string& failed_step) const;
};

// With --online: adds the fetched endorsements to `options` (online_endorsements.h; throws its
// io_error / invalid_argument). Without: nothing (an empty OnlineUse).
OnlineUse apply_online(const OnlineArgs& args, std::span<const uint8_t> evidence, EvidenceOptions& options);

// The live mode's online flags (the server's answer brings the VCEK and chain, so only AMD's CRL is
// fetched): --online, --kds-url BASE, --cache-dir DIR (the last two need --online).
void add_live_online_options(CLI::App& cmd, OnlineArgs& args);

// With --online: `policy.snp_crl` = AMD's CRL for the product of the SEV-SNP hardware report in
// `response_body` (a GET /v1/attestation answer). Nothing for an answer that does not parse (the
// verification rejects it), simulated evidence (its ARK is not AMD's) or TDX evidence. Throws like
// apply_online.
OnlineUse apply_live_online(const OnlineArgs& args, const std::string& response_body, AttestationPolicy& policy);

}  // namespace a3s::power::verify::cli
