// Access to the recorded SEV-SNP evidence in ../shared/testdata/attestation/sev-snp/.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "verify/sev_snp/sev_snp_verify.h"

namespace a3s::power::verify::sev_snp::testing {

// Verification as of 2026-06-01, inside the recorded certificates' validity.
inline VerifyOptions at_2026() {
  VerifyOptions o;
  o.at = std::chrono::sys_days{std::chrono::year{2026} / 6 / 1};
  return o;
}

inline std::string snp_testdata(const std::string& name) {
  return std::string(A3S_TESTDATA_DIR) + "/attestation/sev-snp/" + name;
}

inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::vector<uint8_t> real_report() {
  return read_bytes(snp_testdata("sev-gcp-reportdata.bin"));
}

inline std::string hex(const uint8_t* p, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += kHex[p[i] >> 4];
    s += kHex[p[i] & 15];
  }
  return s;
}
template <class A>
std::string hex(const A& a) {
  return hex(a.data(), a.size());
}

template <class A>
A from_hex(const std::string& h) {
  A a{};
  for (size_t i = 0; i < a.size() && 2 * i + 1 < h.size(); ++i)
    a[i] = static_cast<uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
  return a;
}

inline constexpr const char* kRealMeasurement =
    "b747d55452e0b9e9079770a49e397c5e6d9573581e246da7baac4f28b5cdc5b1b6d19251b8ee600fd16a3708f58406f3";
inline constexpr const char* kRealReportData =
    "32fc4f6c1971cbf91566231f8d6153eeb9d093aa94306cb48d39bcc4861a3d395f149876a37bc91332fe493f46294fd1"
    "35d5b95d363ae96352b8c45f906079f5";

}  // namespace a3s::power::verify::sev_snp::testing
