// Intel Provisioning Certification Service (PCS) v4 requests for TDX collateral, and the assembly of
// their answers into the collateral a3s_verify checks (TdxCollateralData: the same content as the
// files of `--collateral DIR`, see src/verify/tdx/tdx_collateral.h).
//
// Source: Intel "Provisioning Certification Service for ECDSA Attestation" API v4:
//   TCB Info:     GET {base}/tdx/certification/v4/tcb?fmspc={FMSPC}         → tcbInfo.json (body)
//                 header TCB-Info-Issuer-Chain: URL-encoded PEM, TCB Signing cert then Root CA
//                                                                         → tcbSignChain.pem
//   QE Identity:  GET {base}/tdx/certification/v4/qe/identity              → qeIdentity.json (body)
//                 header SGX-Enclave-Identity-Issuer-Chain (the same TCB signing chain; required)
//   PCK CRL:      GET {base}/sgx/certification/v4/pckcrl?ca={platform|processor}&encoding=der
//                 → intermediateCaCrl.der; header SGX-PCK-CRL-Issuer-Chain (required)
//   Root CA CRL:  GET {base}/sgx/certification/v4/rootcacrl → rootCaCrl.der (DER; a hex-encoded body
//                 is decoded too)
// {FMSPC}: the 6-byte FMSPC of the PCK certificate's SGX extensions, uppercase hex; ca: "processor"
// for a PCK certificate issued by "Intel SGX PCK Processor CA", "platform" for "Intel SGX PCK
// Platform CA". base defaults to https://api.trustedservices.intel.com.
//
// Freshness: each answer is cached until its own nextUpdate (TCB Info and QE Identity: the JSON
// field; CRLs: the CRL's nextUpdate) and fetched again afterwards.
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "a3s/power/verify.h"
#include "verify/online/endorsement_fetch.h"

namespace a3s::power::verify::online {

inline constexpr const char* kDefaultPcsUrl = "https://api.trustedservices.intel.com";

struct PcsQuery {
  std::array<uint8_t, 6> fmspc{};
  std::string pck_ca;  // "platform" | "processor"
};

// The query for a quote's collateral, from its PCK certificate: the first certificate of
// `cert_chain_pem` when given, else of the quote's certification data (type 5). std::nullopt when the
// quote or its PCK certificate does not parse (verify_evidence then rejects it with the usual step).
// Throws a3s::power::Error "invalid_argument" for a PCK certificate whose issuer is neither PCK CA.
std::optional<PcsQuery> pcs_query_for(std::span<const uint8_t> quote, const std::string& cert_chain_pem);

std::string tcb_info_path(const std::array<uint8_t, 6>& fmspc);  // "/tdx/certification/v4/tcb?fmspc=00806F050000"
std::string qe_identity_path();                                  // "/tdx/certification/v4/qe/identity"
std::string pck_crl_path(std::string_view ca);  // "/sgx/certification/v4/pckcrl?ca=processor&encoding=der"
std::string root_ca_crl_path();                 // "/sgx/certification/v4/rootcacrl"

// Fetches the four answers (through the cache) and assembles them. Throws Error "io_error" when one
// cannot be fetched or lacks its issuer-chain header. The content is not verified here; an invalid
// answer fails the collateral steps of verify_evidence exactly as a bad collateral file does.
TdxCollateralData fetch_tdx_collateral(const std::string& base, const PcsQuery& query,
                                       const FetchContext& context);

// Percent-decoding of a header value (%XX; '+' is kept). Throws Error "io_error" on a bad escape.
std::string url_decode(std::string_view text);

// The nextUpdate of a TCB Info / QE Identity JSON ("tcbInfo" / "enclaveIdentity" . "nextUpdate",
// "YYYY-MM-DDThh:mm:ssZ") or of a DER CRL; std::nullopt when absent or unparsable.
std::optional<std::time_t> json_next_update(const std::string& json);
std::optional<std::time_t> crl_next_update(const std::string& der);

}  // namespace a3s::power::verify::online
