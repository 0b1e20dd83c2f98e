// Shared helpers for the TDX verification tests: the recorded quotes and Intel's sample collateral in
// ../shared/testdata/attestation/tdx/.
#pragma once

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/hex.h"
#include "verify/tdx/collateral_fields.h"
#include "verify/tdx/tdx_collateral.h"
#include "verify/tdx/tdx_verify.h"

namespace a3s::power::verify::tdx::testing {

inline std::filesystem::path tdx_dir() {
  return std::filesystem::path(A3S_TESTDATA_DIR) / "attestation" / "tdx";
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& p) {
  std::string s = read_text(p);
  return std::vector<uint8_t>(s.begin(), s.end());
}

inline std::vector<uint8_t> edgeless_quote() {
  return read_bytes(tdx_dir() / "tdx-v4-edgeless.dat");
}
inline std::vector<uint8_t> sample_quote() {
  return read_bytes(tdx_dir() / "quote.dat");
}

// 2025-09-01T00:00:00Z: inside the validity of Intel's sample collateral.
inline std::time_t sample_time() {
  return *parse_iso8601_utc("2025-09-01T00:00:00Z");
}

// Options under which Intel's sample quote verifies fully: its sample root, its PCK chain files, its
// collateral directory, a time inside their validity.
inline TdxVerifyOptions sample_options() {
  TdxVerifyOptions o;
  o.root_pem = read_text(tdx_dir() / "trustedRootCaCert.pem");
  o.pck_chain_pem = read_text(tdx_dir() / "pckCert.pem") + read_text(tdx_dir() / "pckSignChain.pem");
  o.collateral = load_tdx_collateral_dir(tdx_dir().string());
  o.at = sample_time();
  return o;
}

// Options under which the real quote verifies: pinned root, embedded chain, no collateral (TCB
// check skipped), at a fixed time inside its PCK certificate's validity (2023-01-26 .. 2030-01-26).
inline TdxVerifyOptions edgeless_options() {
  TdxVerifyOptions o;
  o.skip_tcb_check = true;
  o.at = sample_time();
  return o;
}

template <size_t N>
std::array<uint8_t, N> hex_array(const std::string& hex) {
  std::array<uint8_t, N> out{};
  decode_hex(hex, out);  // all zero when `hex` is not 2 * N hex digits
  return out;
}

}  // namespace a3s::power::verify::tdx::testing
