// Recorded hardware evidence from ../shared/testdata/attestation/ and a temporary fake root tree.
#pragma once

#include "support/temp_dir.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "attestation/report_data.h"

namespace a3s::power::tee::testing {

inline constexpr const char* kGcpMeasurement =
    "b747d55452e0b9e9079770a49e397c5e6d9573581e246da7baac4f28b5cdc5b1b6d19251b8ee600fd16a3708f58406f3";
inline constexpr const char* kGcpReportData =
    "32fc4f6c1971cbf91566231f8d6153eeb9d093aa94306cb48d39bcc4861a3d395f149876a37bc91332fe493f46294fd1"
    "35d5b95d363ae96352b8c45f906079f5";
inline constexpr const char* kEdgelessMrtd =
    "b65ea009e424e6f761fdd3d7c8962439453b37ecdf62da04f7bc5d327686bb8bafc8a5d24a9c31cee60e4aba87c2f71b";

inline std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline std::vector<uint8_t> gcp_snp_report() {
  return read_bytes(std::string(A3S_TESTDATA_DIR) + "/attestation/sev-snp/sev-gcp-reportdata.bin");
}

inline std::vector<uint8_t> edgeless_tdx_quote() {
  return read_bytes(std::string(A3S_TESTDATA_DIR) + "/attestation/tdx/tdx-v4-edgeless.dat");
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

inline ReportData report_data_from_hex(const std::string& h) {
  ReportData rd{};
  for (size_t i = 0; i < rd.size(); ++i)
    rd[i] = static_cast<uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
  return rd;
}

// "Hello from Edgeless Systems!" then zero bytes.
inline ReportData edgeless_report_data() {
  ReportData rd{};
  const std::string text = "Hello from Edgeless Systems!";
  std::copy(text.begin(), text.end(), rd.begin());
  return rd;
}

// A fresh temporary directory, removed with its contents on destruction.
using TempRoot = ::a3s::power::testing::TempDir;  // support/temp_dir.h

}  // namespace a3s::power::tee::testing
