// The Debian packages as an operator gets them: cpack builds a3s-power and a3s-power-verify from this
// build directory, `dpkg-deb` shows their control fields, `dpkg -x` unpacks them into a scratch root,
// `systemd-analyze verify --root` checks the unit, and the packaged binary starts on the packaged
// configuration (relocated into the scratch root): refused in strict mode where no attestation
// hardware answers, answering /health with simulated evidence in development mode.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "support/http_client.h"
#include "support/process.h"
#include "support/server_process.h"

namespace a3s::power::testing {
namespace {

namespace fs = std::filesystem;

RunOptions run_options(bool merge_stderr, bool private_home, int timeout_seconds) {
  RunOptions o;
  o.merge_stderr = merge_stderr;
  o.private_home = private_home;
  o.timeout = std::chrono::seconds(timeout_seconds);
  return o;
}

// The packages, built once for the whole suite, and the root both are unpacked into.
struct Packages {
  TempDir dir{"a3s-package"};
  std::string server_deb, verify_deb, root, cpack_log;
  bool built = false;
};

Packages& packages() {
  static std::unique_ptr<Packages> p = [] {
    auto pk = std::make_unique<Packages>();
    const std::string out = pk->dir.path() + "/out";
    const ProcessResult r = run_process(A3S_CPACK, {"--config", std::string(A3S_BUILD_DIR) + "/CPackConfig.cmake",
                                                    "-G", "DEB", "-B", out},
                                        run_options(true, false, 600));
    pk->cpack_log = r.out;
    if (r.status != 0) return pk;
    for (const auto& e : fs::directory_iterator(out)) {
      const std::string name = e.path().filename().string();
      if (name.rfind("a3s-power-verify_", 0) == 0 && e.path().extension() == ".deb") pk->verify_deb = e.path().string();
      else if (name.rfind("a3s-power_", 0) == 0 && e.path().extension() == ".deb") pk->server_deb = e.path().string();
    }
    pk->root = pk->dir.path() + "/root";
    fs::create_directories(pk->root);
    for (const std::string& deb : {pk->server_deb, pk->verify_deb}) {
      if (deb.empty() || run_process("/usr/bin/dpkg", {"-x", deb, pk->root}).status != 0) return pk;
    }
    pk->built = true;
    return pk;
  }();
  return *p;
}

std::string field(const std::string& deb, const std::string& name) {
  const ProcessResult r = run_process("/usr/bin/dpkg-deb", {"-f", deb, name});
  std::string v = r.out;
  while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
  return v;
}

bool is_executable(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR) != 0;
}

const char* kUnit = "/usr/lib/systemd/system/a3s-power.service";
const char* kConfig = "/etc/a3s-power/power.hcl";

class DebianPackage : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(packages().built) << "cpack / dpkg -x failed:\n" << packages().cpack_log;
  }
  const Packages& pk() const { return packages(); }
};

TEST_F(DebianPackage, TwoPackagesWithTheirControlFields) {
  EXPECT_EQ(field(pk().server_deb, "Package"), "a3s-power");
  EXPECT_EQ(field(pk().verify_deb, "Package"), "a3s-power-verify");
  for (const std::string& deb : {pk().server_deb, pk().verify_deb}) {
    EXPECT_FALSE(field(deb, "Version").empty()) << deb;
    EXPECT_EQ(field(deb, "Architecture"), "amd64") << deb;
    EXPECT_NE(field(deb, "Maintainer").find('<'), std::string::npos) << deb;
    // dpkg-shlibdeps found the shared libraries the binaries link (OpenSSL 3 at least).
    EXPECT_NE(field(deb, "Depends").find("libssl3"), std::string::npos) << field(deb, "Depends");
  }
}

TEST_F(DebianPackage, FilesAreWhereTheUnitAndTheDocsSay) {
  EXPECT_TRUE(is_executable(pk().root + "/usr/bin/a3s-power"));
  EXPECT_TRUE(is_executable(pk().root + "/usr/bin/a3s-power-verify"));
  EXPECT_TRUE(fs::is_regular_file(pk().root + kUnit));
  EXPECT_TRUE(fs::is_regular_file(pk().root + kConfig));
  EXPECT_TRUE(fs::is_regular_file(pk().root + "/usr/share/doc/a3s-power/deployment.md"));
  EXPECT_TRUE(fs::is_regular_file(pk().root + "/usr/share/doc/a3s-power-verify/verify.md"));
  // The verifier package carries the verifier only.
  const ProcessResult listing = run_process("/usr/bin/dpkg-deb", {"-c", pk().verify_deb});
  EXPECT_EQ(listing.out.find("bin/a3s-power\n"), std::string::npos) << listing.out;
  EXPECT_NE(listing.out.find("bin/a3s-power-verify"), std::string::npos) << listing.out;
}

TEST_F(DebianPackage, ConfigurationIsAConffileBindingLoopbackInStrictTeeMode) {
  TempDir control("a3s-control");
  ASSERT_EQ(run_process("/usr/bin/dpkg-deb", {"-e", pk().server_deb, control.path() + "/DEBIAN"}).status, 0);
  EXPECT_EQ(read_text_file(control.path() + "/DEBIAN/conffiles"), std::string(kConfig) + "\n");
  const std::string config = read_text_file(pk().root + kConfig);
  EXPECT_TRUE(std::regex_search(config, std::regex(R"(\nhost = "127\.0\.0\.1"\n)"))) << config;
  EXPECT_TRUE(std::regex_search(config, std::regex(R"(\ntee_mode\s+= true\n)"))) << config;
  EXPECT_TRUE(std::regex_search(config, std::regex(R"(\ntee_policy = "strict"\n)"))) << config;
  EXPECT_TRUE(std::regex_search(config, std::regex(R"(\nhome = "/var/lib/a3s-power"\n)"))) << config;
}

TEST_F(DebianPackage, UnitIsHardenedAndKeepsAttestationReachable) {
  const std::string unit = read_text_file(pk().root + kUnit);
  for (const char* line :
       {"ExecStart=/usr/bin/a3s-power serve --config /etc/a3s-power/power.hcl", "NoNewPrivileges=yes",
        "ProtectSystem=strict", "ReadWritePaths=-/sys/kernel/config/tsm/report", "ProtectHome=yes",
        "PrivateTmp=yes", "DevicePolicy=closed", "DeviceAllow=/dev/sev-guest rw", "DeviceAllow=/dev/tdx_guest rw",
        "MemoryDenyWriteExecute=yes", "LockPersonality=yes", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_VSOCK",
        "StateDirectory=a3s-power", "LimitMEMLOCK=infinity", "LimitCORE=0", "CapabilityBoundingSet=CAP_IPC_LOCK"}) {
    EXPECT_NE(unit.find(std::string("\n") + line + "\n"), std::string::npos) << "missing: " << line;
  }
  // A blanket PrivateDevices would hide the guest devices that attestation needs.
  EXPECT_EQ(unit.find("\nPrivateDevices="), std::string::npos);
}

// systemd-analyze verify of `unit` inside `root`, which holds the unpacked packages and the targets and
// slices of the system they are installed on (the unit's dependencies: multi-user.target, …).
ProcessResult verify_unit(const std::string& root, const std::string& unit) {
  const std::string units = root + "/usr/lib/systemd/system";
  for (const auto& e : fs::directory_iterator("/usr/lib/systemd/system")) {
    const std::string ext = e.path().extension().string();
    if ((ext == ".target" || ext == ".slice") && !fs::exists(units + "/" + e.path().filename().string())) {
      std::error_code ec;
      fs::copy(e.path(), units, fs::copy_options::copy_symlinks, ec);
    }
  }
  return run_process("/usr/bin/systemd-analyze", {"verify", "--root=" + root, unit}, run_options(true, false, 120));
}

TEST_F(DebianPackage, UnitVerifiesWithSystemdAnalyze) {
  ASSERT_TRUE(is_executable("/usr/bin/systemd-analyze")) << "systemd-analyze is missing (scripts/install-deps.sh installs it)";
  const ProcessResult r = verify_unit(pk().root, pk().root + kUnit);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("a3s-power.service:"), std::string::npos) << r.out;  // no warning about our unit

  // The check can fail: the same unit pointing at a binary the packages do not hold is refused.
  std::string broken = read_text_file(pk().root + kUnit);
  broken = std::regex_replace(broken, std::regex("ExecStart=/usr/bin/a3s-power "), "ExecStart=/usr/bin/a3s-power-missing ");
  const std::string broken_path = pk().root + "/usr/lib/systemd/system/a3s-power-broken.service";
  std::ofstream(broken_path) << broken;
  const ProcessResult bad = verify_unit(pk().root, broken_path);
  fs::remove(broken_path);
  EXPECT_NE(bad.status, 0) << bad.out;
  EXPECT_NE(bad.out.find("a3s-power-missing"), std::string::npos) << bad.out;
}

// The packaged configuration with its paths moved into the scratch root (and an empty TEE device root,
// so that no attestation hardware answers wherever the test runs).
std::string relocated_config(const Packages& pk, const std::string& tee_root) {
  std::string config = read_text_file(pk.root + kConfig);
  const std::string home = pk.root + "/var/lib/a3s-power";
  fs::create_directories(home);
  fs::permissions(home, fs::perms::owner_all);
  config = std::regex_replace(config, std::regex(R"(\nhome = "/var/lib/a3s-power"\n)"), "\nhome = \"" + home + "\"\n");
  config += "\ntee_device_root = \"" + tee_root + "\"\n";
  const std::string path = pk.root + "/etc/a3s-power/relocated.hcl";
  std::ofstream(path) << config;
  return path;
}

// Runs the packaged binary instead of the build's: the launcher drops the build binary's path.
std::vector<std::string> packaged_launcher(const Packages& pk) {
  return {"/bin/sh", "-c", "shift; exec \"$0\" \"$@\"", pk.root + "/usr/bin/a3s-power"};
}

TEST_F(DebianPackage, PackagedServerRefusesStrictModeWithoutAttestationHardware) {
  TempDir tee_root("a3s-no-tee");
  const std::string config = relocated_config(pk(), tee_root.path());
  const ProcessResult r = run_process(pk().root + "/usr/bin/a3s-power", {"serve", "--config", config, "--port", "0"},
                                      run_options(false, true, 60));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("strict"), std::string::npos) << r.err;
}

TEST_F(DebianPackage, PackagedServerStartsOnThePackagedConfigAndAnswersHealth) {
  TempDir tee_root("a3s-no-tee");
  const std::string config = relocated_config(pk(), tee_root.path());
  // Development policy from the environment (it overrides the file): simulated evidence, labelled so.
  ServerProcess server({"--config", config}, {{"A3S_POWER_TEE_POLICY", "development"}}, packaged_launcher(pk()));
  ASSERT_TRUE(server.ready()) << server.log();
  EXPECT_NE(server.listening_line().find("http://127.0.0.1:"), std::string::npos) << server.listening_line();
  const HttpResult health = http("GET", server.url("/health"));
  ASSERT_EQ(health.status, 200) << health.body;
  const nlohmann::json j = nlohmann::json::parse(health.body);
  EXPECT_EQ(j.value("status", ""), "ok") << health.body;
  EXPECT_EQ(server.stop(), 0) << server.log();
}

}  // namespace
}  // namespace a3s::power::testing
