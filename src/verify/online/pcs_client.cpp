#include "verify/online/pcs_client.h"

#include <openssl/x509.h>

#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "a3s/power/error.h"
#include "crypto/openssl.h"
#include "base/hex.h"
#include "base/percent_encode.h"
#include "verify/tdx/certificate_chain.h"
#include "verify/tdx/pck_extensions.h"
#include "attestation/tdx/quote.h"

namespace a3s::power::verify::online {
namespace {

std::string upper_hex(std::span<const uint8_t> bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (uint8_t b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string issuer_cn(X509* cert) {
  char cn[256] = {0};
  if (X509_NAME_get_text_by_NID(X509_get_issuer_name(cert), NID_commonName, cn, sizeof cn) < 0) return "";
  return cn;
}

// A body that is hex text (PCS v3 style) is decoded; DER is returned as is. DER (an ASN.1 SEQUENCE,
// first byte 0x30; hex text starts with a digit or letter) is never trimmed: its last bytes may be any
// value, white space included.
std::string der_or_hex(std::string body) {
  if (!body.empty() && static_cast<unsigned char>(body.front()) == 0x30) return body;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back()))) body.pop_back();
  if (body.empty() || body.size() % 2 != 0) return body;
  const auto bytes = decode_hex(body);
  if (!bytes) return body;
  return std::string(bytes->begin(), bytes->end());
}

std::string required_header(const CachedResponse& r, std::string_view name, const std::string& url) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return url_decode(v);
  throw Error(codes::kIo, "GET " + url + ": the answer lacks the " + std::string(name) + " header");
}

std::optional<std::time_t> parse_utc(const std::string& text) {
  std::tm tm{};
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char z = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &s, &z) != 7 || z != 'Z')
    return std::nullopt;
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  return timegm(&tm);
}

}  // namespace

std::optional<PcsQuery> pcs_query_for(std::span<const uint8_t> quote, const std::string& cert_chain_pem) {
  std::vector<crypto::X509Ptr> certs;
  try {
    if (!cert_chain_pem.empty()) {
      certs = tdx::parse_pem_certificates(
          std::span(reinterpret_cast<const uint8_t*>(cert_chain_pem.data()), cert_chain_pem.size()));
    } else {
      const tdx::TdxQuote q = tdx::parse_tdx_quote(quote);
      if (q.pck_cert_data.empty()) return std::nullopt;
      certs = tdx::parse_pem_certificates(q.pck_cert_data);
    }
    if (certs.empty()) return std::nullopt;
    PcsQuery query;
    query.fmspc = tdx::parse_pck_extensions(certs.front().get()).fmspc;
    const std::string issuer = issuer_cn(certs.front().get());
    if (issuer == "Intel SGX PCK Processor CA") {
      query.pck_ca = "processor";
    } else if (issuer == "Intel SGX PCK Platform CA") {
      query.pck_ca = "platform";
    } else {
      throw Error(codes::kInvalidArgument, "the PCK certificate's issuer \"" + issuer +
                                               "\" is neither Intel SGX PCK CA: no PCK CRL to fetch");
    }
    return query;
  } catch (const Error&) {
    throw;
  } catch (const std::exception&) {
    return std::nullopt;  // the verification reports the malformed quote / chain itself
  }
}

std::string tcb_info_path(const std::array<uint8_t, 6>& fmspc) {
  return "/tdx/certification/v4/tcb?fmspc=" + upper_hex(fmspc);
}
std::string qe_identity_path() { return "/tdx/certification/v4/qe/identity"; }
std::string pck_crl_path(std::string_view ca) {
  return "/sgx/certification/v4/pckcrl?ca=" + std::string(ca) + "&encoding=der";
}
std::string root_ca_crl_path() { return "/sgx/certification/v4/rootcacrl"; }

std::string url_decode(std::string_view text) {
  auto out = percent_decode(text);
  if (!out) throw Error(codes::kIo, "a bad %-escape in an issuer-chain header");
  return *out;
}

std::optional<std::time_t> json_next_update(const std::string& json) {
  const auto j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  for (const char* top : {"tcbInfo", "enclaveIdentity"}) {
    if (j.contains(top) && j[top].is_object() && j[top].contains("nextUpdate") && j[top]["nextUpdate"].is_string())
      return parse_utc(j[top]["nextUpdate"].get<std::string>());
  }
  return std::nullopt;
}

std::optional<std::time_t> crl_next_update(const std::string& der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  crypto::X509CrlPtr crl(d2i_X509_CRL(nullptr, &p, static_cast<long>(der.size())));
  if (!crl) return std::nullopt;
  const ASN1_TIME* next = X509_CRL_get0_nextUpdate(crl.get());
  std::tm tm{};
  if (next == nullptr || ASN1_TIME_to_tm(next, &tm) != 1) return std::nullopt;
  return timegm(&tm);
}

TdxCollateralData fetch_tdx_collateral(const std::string& base, const PcsQuery& query,
                                       const FetchContext& context) {
  const ExpiryOf json_expiry = [](const CachedResponse& r) { return json_next_update(r.body); };
  const ExpiryOf crl_expiry = [](const CachedResponse& r) { return crl_next_update(der_or_hex(r.body)); };
  TdxCollateralData c;

  const std::string tcb_path = tcb_info_path(query.fmspc);
  const CachedResponse tcb = fetch_endorsement(base, tcb_path, context, json_expiry);
  c.tcb_info_json = tcb.body;
  c.tcb_sign_chain_pem = required_header(tcb, "tcb-info-issuer-chain", endorsement_url(base, tcb_path));

  const CachedResponse qe = fetch_endorsement(base, qe_identity_path(), context, json_expiry);
  required_header(qe, "sgx-enclave-identity-issuer-chain", endorsement_url(base, qe_identity_path()));
  c.qe_identity_json = qe.body;

  const std::string pck_path = pck_crl_path(query.pck_ca);
  const CachedResponse pck = fetch_endorsement(base, pck_path, context, crl_expiry);
  required_header(pck, "sgx-pck-crl-issuer-chain", endorsement_url(base, pck_path));
  c.pck_ca_crl_der = der_or_hex(pck.body);

  c.root_ca_crl_der = der_or_hex(fetch_endorsement(base, root_ca_crl_path(), context, crl_expiry).body);
  return c;
}

}  // namespace a3s::power::verify::online
