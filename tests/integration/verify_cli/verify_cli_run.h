// The a3s-power-verify tests: the real binary run as a user would (support/process.h captures stdout,
// stderr and exit status), the shared attestation test data and the checks on its output.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_dir.h"

namespace a3s::power::verify_cli {

using CliResult = testing::ProcessResult;
using testing::expect_one_line_error;  // the run exited with `status` and wrote one line to stderr

// a3s-power-verify with `args` (stdin empty), in the test process's environment.
CliResult run_verify(const std::vector<std::string>& args);

// Path of a file under ../shared/testdata/attestation/.
std::string attestation(const std::string& rel);

std::vector<uint8_t> read_bytes(const std::string& path);

// A temporary directory (support/temp_dir.h) that also writes binary files.
class ScratchDir : public testing::TempDir {
 public:
  ScratchDir() : TempDir("a3s-verify") {}
  using TempDir::write;
  // Writes `bytes` to a file named `name` in the directory; returns its path.
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    return TempDir::write(name, std::string(bytes.begin(), bytes.end()));
  }
};

// stdout must be exactly one JSON object (and a newline).
nlohmann::json parse_json_output(const CliResult& r);

// The SEV-SNP report's documented values (testdata README).
inline constexpr const char* kSnpMeasurement =
    "b747d55452e0b9e9079770a49e397c5e6d9573581e246da7baac4f28b5cdc5b1b6d19251b8ee600fd16a3708f58406f3";
inline constexpr const char* kSnpReportData =
    "32fc4f6c1971cbf91566231f8d6153eeb9d093aa94306cb48d39bcc4861a3d395f149876a37bc91332fe493f46294fd135d5b95d"
    "3"
    "63ae96352b8c45f906079f5";
// The real TDX quote's MRTD and REPORTDATA ("Hello from Edgeless Systems!" then zeros).
inline constexpr const char* kEdgelessMrtd =
    "b65ea009e424e6f761fdd3d7c8962439453b37ecdf62da04f7bc5d327686bb8bafc8a5d24a9c31cee60e4aba87c2f71b";
inline std::string edgeless_report_data() {
  return "48656c6c6f2066726f6d20456467656c6573732053797374656d7321" + std::string(72, '0');
}

}  // namespace a3s::power::verify_cli
