// Shared helpers for the TDX verification tests: the recorded quotes and Intel's sample collateral in
// ../shared/testdata/attestation/tdx/.
#pragma once

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "verify/tdx/collateral_fields.h"
#include "verify/tdx/tdx_quote.h"

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

inline std::vector<uint8_t> edgeless_quote() { return read_bytes(tdx_dir() / "tdx-v4-edgeless.dat"); }
inline std::vector<uint8_t> sample_quote() { return read_bytes(tdx_dir() / "quote.dat"); }

template <size_t N>
std::array<uint8_t, N> hex_array(const std::string& hex) {
  auto bytes = parse_hex(hex, N);
  std::array<uint8_t, N> out{};
  if (bytes) std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

}  // namespace a3s::power::verify::tdx::testing
