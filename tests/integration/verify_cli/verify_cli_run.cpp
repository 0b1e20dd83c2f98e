#include "verify_cli_run.h"

namespace a3s::power::verify_cli {

CliResult run_verify(const std::vector<std::string>& args) {
  return testing::run_process(testing::bin_path("a3s-power-verify"), args);
}

std::string attestation(const std::string& rel) {
  return std::string(A3S_TESTDATA_DIR) + "/attestation/" + rel;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  const std::string s = testing::read_text_file(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

nlohmann::json parse_json_output(const CliResult& r) {
  EXPECT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line of JSON expected: " << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);  // throws (test fails) on anything but one value
  EXPECT_TRUE(j.is_object());
  return j;
}

}  // namespace a3s::power::verify_cli
