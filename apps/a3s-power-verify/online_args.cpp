#include "a3s-power-verify/online_args.h"

#include "a3s-power-verify/non_empty_arg.h"
#include "http_client/http_client_built.h"
#include "verify/online/endorsement_cache.h"
#include "verify/online/online_endorsements.h"
#include "attestation/verify_result.h"

namespace a3s::power::verify::cli {

void add_online_options(CLI::App& cmd, OnlineArgs& a) {
  const CLI::Validator& kNonEmpty = non_empty();
  CLI::Option* online = cmd.add_flag(
      "--online", a.online,
      "Fetch missing endorsements: SEV-SNP VCEK from AMD KDS, TDX collateral from Intel PCS (cached)");
  cmd.add_option("--kds-url", a.kds_url, "With --online: AMD KDS base URL (default https://kdsintf.amd.com)")
      ->check(kNonEmpty)
      ->needs(online);
  cmd.add_option("--pcs-url", a.pcs_url,
                 "With --online: Intel PCS base URL (default https://api.trustedservices.intel.com)")
      ->check(kNonEmpty)
      ->needs(online);
  cmd.add_flag("--no-amd-crl", a.no_amd_crl,
               "With --online: SEV-SNP: do not fetch AMD's CRL (ASK / VCEK revocation not checked)")
      ->needs(online);
  cmd.add_option("--cache-dir", a.cache_dir,
                 "With --online: endorsement cache (default $XDG_CACHE_HOME/a3s-power-verify or "
                 "~/.cache/a3s-power-verify)")
      ->check(kNonEmpty)
      ->needs(online);
}

void OnlineUse::forget_after(const std::string& failed_step) const {
  if (failed_step == steps::kSignatureInvalid || failed_step == steps::kChainInvalid ||
      failed_step == steps::kCollateralInvalid)
    online::forget_endorsements(cache_dir, urls);
}

namespace {

online::OnlineOptions online_options(const OnlineArgs& a, OnlineUse& use) {
  online::OnlineOptions o;
  o.kds_url = a.kds_url;
  o.pcs_url = a.pcs_url;
  o.amd_crl = !a.no_amd_crl;
  o.cache_dir = a.cache_dir.empty() ? online::default_cache_dir() : a.cache_dir;
  use.cache_dir = o.cache_dir;
  o.used_urls = &use.urls;
  return o;
}

}  // namespace

OnlineUse apply_online(const OnlineArgs& a, std::span<const uint8_t> evidence, EvidenceOptions& options) {
  OnlineUse use;
  if (!a.online) return use;
  client::require_http_client("a3s-power-verify --online");
  online::add_online_endorsements(evidence, options, online_options(a, use));
  return use;
}

}  // namespace a3s::power::verify::cli
