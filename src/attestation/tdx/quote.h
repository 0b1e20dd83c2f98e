// Intel TDX DCAP quote (versions 4 and 5): the parsed layout, byte for byte.
//
// Source: Intel "TDX DCAP Quoting Library API" (quote format appendix): Quote Header (48 bytes),
// TD Quote Body (TDX 1.0: 584 bytes; TDX 1.5: 648 bytes), ECDSA 256-bit Quote Signature Data,
// QE Certification Data (type 6 = QE report certification data; nested type 5 = PCK certificate chain,
// PEM). All integers are little-endian. Every byte array here is a copy of the quote's bytes, in the
// quote's order (measurements are not reversed).
//
// Layout handled:
//   v4: header[48] | body[584] | u32 sig_len | signature data[sig_len]
//   v5: header[48] | u16 body_type | u32 body_size | body[body_size] | u32 sig_len | signature data
//       body_type 2 = TDX 1.0 (584 bytes), 3 = TDX 1.5 (648 bytes, adds TEE_TCB_SVN_2, MRSERVICETD)
//   signature data: ECDSA signature r||s [64] | attestation public key x||y [64] |
//                   u16 cert_type (must be 6) | u32 cert_size | QE report [384] | QE report signature [64] |
//                   u16 qe_auth_size | QE auth data | u16 cert_type (5 expected) | u32 size | data
//
// Errors: parse_tdx_quote throws TdxQuoteError whose step() is steps::kUnsupportedVersion (quote
// version, attestation key type, TEE type, body type) or steps::kMalformedEvidence (sizes, offsets,
// certification data types); the message names the field and its byte offset. It never reads out of
// bounds, whatever the input.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "attestation/verify_result.h"

namespace a3s::power::verify::tdx {

using Measurement48 = std::array<uint8_t, 48>;  // SHA-384 sized register (MRTD, RTMRn, MRSEAM, ...)

inline constexpr uint16_t kQuoteVersion4 = 4;
inline constexpr uint16_t kQuoteVersion5 = 5;
inline constexpr uint16_t kAttestationKeyEcdsaP256 = 2;
inline constexpr uint32_t kTeeTypeTdx = 0x81;
inline constexpr size_t kHeaderSize = 48;
inline constexpr size_t kTdReportBody10Size = 584;
inline constexpr size_t kTdReportBody15Size = 648;
inline constexpr size_t kQeReportSize = 384;
inline constexpr uint16_t kCertDataPckCertChain = 5;  // PEM: PCK cert, intermediate CA, root CA
inline constexpr uint16_t kCertDataQeReport = 6;      // QE report certification data

class TdxQuoteError : public std::runtime_error {
 public:
  TdxQuoteError(const char* step, const std::string& message) : std::runtime_error(message), step_(step) {}
  const char* step() const { return step_; }

 private:
  const char* step_;
};

// Quote Header (48 bytes at offset 0).
struct QuoteHeader {
  uint16_t version = 0;               // 4 or 5
  uint16_t attestation_key_type = 0;  // 2 = ECDSA-256-with-P-256
  uint32_t tee_type = 0;              // 0x81 = TDX
  std::array<uint8_t, 4> reserved{};  // bytes 8..11 (QE/PCE SVN slots in SGX quotes)
  std::array<uint8_t, 16> qe_vendor_id{};
  std::array<uint8_t, 20> user_data{};
};

// TD Quote Body (TD report body). Offsets are relative to the body start.
struct TdReportBody {
  std::array<uint8_t, 16> tee_tcb_svn{};     // 0: TDX module TCB SVN (16 one-byte components)
  Measurement48 mr_seam{};                   // 16
  Measurement48 mr_signer_seam{};            // 64
  std::array<uint8_t, 8> seam_attributes{};  // 112
  std::array<uint8_t, 8> td_attributes{};    // 120: bit 0 = DEBUG
  std::array<uint8_t, 8> xfam{};             // 128
  Measurement48 mr_td{};                     // 136: MRTD
  Measurement48 mr_config_id{};              // 184
  Measurement48 mr_owner{};                  // 232
  Measurement48 mr_owner_config{};           // 280
  std::array<Measurement48, 4> rtmr{};       // 328, 376, 424, 472: RTMR0..3
  std::array<uint8_t, 64> report_data{};     // 520: REPORTDATA
  // TDX 1.5 only (v5 body type 3):
  bool has_tdx15_fields = false;
  std::array<uint8_t, 16> tee_tcb_svn_2{};  // 584
  Measurement48 mr_service_td{};            // 600

  bool debug() const { return (td_attributes[0] & 0x01) != 0; }  // TDATTRIBUTES bit 0
};

// SGX enclave report body of the Quoting Enclave (384 bytes).
struct QeReport {
  std::array<uint8_t, 16> cpu_svn{};      // 0
  std::array<uint8_t, 4> misc_select{};   // 16 (bytes as in the report)
  std::array<uint8_t, 16> attributes{};   // 48
  std::array<uint8_t, 32> mr_enclave{};   // 64
  std::array<uint8_t, 32> mr_signer{};    // 128
  uint16_t isv_prod_id = 0;               // 256
  uint16_t isv_svn = 0;                   // 258
  std::array<uint8_t, 64> report_data{};  // 320
};

struct TdxQuote {
  QuoteHeader header;
  uint16_t body_type = 2;  // v4 quotes: always 2 (TDX 1.0)
  TdReportBody body;
  std::vector<uint8_t> signed_bytes;          // exactly the bytes the quote signature covers
  std::array<uint8_t, 64> signature{};        // ECDSA P-256 r||s (32 bytes each, big-endian)
  std::array<uint8_t, 64> attestation_key{};  // P-256 point x||y (big-endian, no 0x04 prefix)
  std::vector<uint8_t> qe_report_bytes;       // the raw 384 bytes the PCK signed
  QeReport qe_report;
  std::array<uint8_t, 64> qe_report_signature{};  // ECDSA P-256 r||s by the PCK key
  std::vector<uint8_t> qe_auth_data;
  uint16_t pck_cert_data_type = 0;     // nested certification data type (5 expected)
  std::vector<uint8_t> pck_cert_data;  // nested certification data (PEM chain for type 5)
};

// Parses a whole quote; trailing bytes after the signature data are an error.
TdxQuote parse_tdx_quote(std::span<const uint8_t> bytes);

}  // namespace a3s::power::verify::tdx
