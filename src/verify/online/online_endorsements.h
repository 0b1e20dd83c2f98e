// Online mode of the verifier: fills in the endorsements a piece of evidence needs and the caller did
// not give, from AMD KDS (SEV-SNP) or Intel PCS (TDX), through the endorsement cache.
//
//   SEV-SNP, no EvidenceOptions::vcek: the VCEK for the report's CHIP_ID and REPORTED_TCB (DER,
//            cached forever: a VCEK is immutable per chip and TCB); for Genoa / Turin without a
//            cert_chain also the product's ASK + ARK (cert_chain; the ARK is still only trusted when it
//            is the pinned one or --root).
//   SEV-SNP, no EvidenceOptions::snp_crl (unless OnlineOptions::amd_crl is false): the product's CRL
//            (cached until its nextUpdate); verify_evidence checks it against the ARK and the serials
//            of the ASK and VCEK.
//   TDX, no collateral_dir: TCB Info, QE Identity, the TCB signing chain and both CRLs
//            (EvidenceOptions::tdx_collateral, cached until their nextUpdate).
// What was given explicitly is never replaced. Everything fetched is verified by verify_evidence as if
// it had been given as files: a wrong certificate or CRL fails the usual chain / collateral step.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "a3s/power/verify.h"

namespace a3s::power::verify::online {

struct OnlineOptions {
  std::string kds_url;    // base URL of AMD KDS ("" = https://kdsintf.amd.com)
  std::string pcs_url;    // base URL of Intel PCS ("" = https://api.trustedservices.intel.com)
  std::string cache_dir;  // "" = no cache
  bool amd_crl = true;    // SEV-SNP: fetch AMD's CRL too
  int* network_requests = nullptr;  // counts the HTTP requests made (optional)
  std::vector<std::string>* used_urls = nullptr;  // the endorsement URLs used, cached or fetched (optional)
};

// Removes the cache entries of `urls` (after a rejection: an entry that failed verification, e.g. a
// wrong certificate from a mirror, is fetched again next time instead of failing for ever).
void forget_endorsements(const std::string& cache_dir, const std::vector<std::string>& urls);

// Throws a3s::power::Error: "io_error" (an endorsement could not be fetched: unreachable, timeout, HTTP
// status other than 200), "invalid_argument" (a base URL that may not be used, e.g. plain http to a
// non-loopback host; evidence whose endorsement cannot be looked up, e.g. a masked CHIP_ID).
// Evidence of unknown type, or that does not parse, is left to verify_evidence to reject.
void add_online_endorsements(std::span<const uint8_t> evidence, EvidenceOptions& options,
                             const OnlineOptions& online);

// The live mode's share of the above (the server's answer brings the VCEK and chain): AMD's CRL for
// the product of `evidence`, an SEV-SNP report (KDS /vcek/v1/{product}/crl, DER, cached until its
// nextUpdate), for AttestationPolicy::snp_crl. "" when `evidence` is not an SEV-SNP report or does not
// parse (verification then rejects it). Throws like add_online_endorsements.
std::string fetch_amd_crl(std::span<const uint8_t> evidence, const OnlineOptions& online);

}  // namespace a3s::power::verify::online
