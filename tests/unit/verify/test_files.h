// Reading the shared attestation test data.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace a3s::power::verify {

inline std::string attestation_path(const std::string& rel) {
  return std::string(A3S_TESTDATA_DIR) + "/attestation/" + rel;
}

inline std::vector<uint8_t> read_attestation(const std::string& rel) {
  std::ifstream f(attestation_path(rel), std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

inline std::string read_attestation_text(const std::string& rel) {
  const auto b = read_attestation(rel);
  return std::string(b.begin(), b.end());
}

}  // namespace a3s::power::verify
