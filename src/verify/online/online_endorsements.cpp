#include "verify/online/online_endorsements.h"

#include <ctime>
#include <exception>

#include "verify/online/endorsement_cache.h"
#include "verify/online/endorsement_fetch.h"
#include "verify/online/kds_client.h"
#include "verify/online/pcs_client.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::verify::online {
namespace {

std::string fetch_crl(const sev_snp::Report& report, const std::string& base, const FetchContext& context) {
  const ExpiryOf crl_expiry = [](const CachedResponse& r) { return crl_next_update(r.body); };
  return fetch_endorsement(base, crl_path(product_for(report)), context, crl_expiry).body;
}

void add_snp(std::span<const uint8_t> evidence, EvidenceOptions& options, const std::string& base,
             const FetchContext& context, bool amd_crl) {
  if (!options.vcek.empty() && (!amd_crl || !options.snp_crl.empty())) return;
  sev_snp::Report report;
  try {
    report = sev_snp::parse_report(evidence);
  } catch (const std::exception&) {
    return;  // malformed_evidence / unsupported_version from verify_evidence
  }
  if (amd_crl && options.snp_crl.empty()) options.snp_crl = fetch_crl(report, base, context);
  if (!options.vcek.empty()) return;
  const VcekRequest request = vcek_request_for(report);
  options.vcek = fetch_endorsement(base, vcek_path(request), context, nullptr).body;
  if (options.cert_chain.empty() && request.product != AmdProduct::kMilan)
    options.cert_chain = fetch_endorsement(base, cert_chain_path(request.product), context, nullptr).body;
}

void add_tdx(std::span<const uint8_t> evidence, EvidenceOptions& options, const std::string& base,
             const FetchContext& context) {
  if (!options.collateral_dir.empty() || options.tdx_collateral || options.no_tcb_check) return;
  const auto query = pcs_query_for(evidence, options.cert_chain);
  if (!query) return;
  options.tdx_collateral = fetch_tdx_collateral(base, *query, context);
}

FetchContext context_for(const OnlineOptions& online, const EndorsementCache& cache) {
  FetchContext context;
  context.cache = online.cache_dir.empty() ? nullptr : &cache;
  context.now = std::time(nullptr);
  context.network_requests = online.network_requests;
  context.used_urls = online.used_urls;
  return context;
}

}  // namespace

void add_online_endorsements(std::span<const uint8_t> evidence, EvidenceOptions& options,
                             const OnlineOptions& online) {
  const EndorsementCache cache(online.cache_dir);
  const FetchContext context = context_for(online, cache);
  switch (detect_tee_type(evidence)) {
    case TeeType::kSevSnp:
      add_snp(evidence, options, online.kds_url.empty() ? kDefaultKdsUrl : online.kds_url, context,
              online.amd_crl);
      break;
    case TeeType::kTdx:
      add_tdx(evidence, options, online.pcs_url.empty() ? kDefaultPcsUrl : online.pcs_url, context);
      break;
    case TeeType::kUnknown:
      break;
  }
}

void forget_endorsements(const std::string& cache_dir, const std::vector<std::string>& urls) {
  const EndorsementCache cache(cache_dir);
  for (const std::string& url : urls) cache.remove(url);
}

}  // namespace a3s::power::verify::online
