// config::load and RA-TLS: ratls needs tee_mode and tls_port, tls_port needs ratls, and the
// certificate lifetime is a number of seconds (default 24 h). The vsock listener's port (vsock_port)
// is a 32-bit vsock port; what it may serve is the bind policy's (server::check_bind_policy).
#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

// The message without the config file's path.
std::string error_of(const std::string& text, Env env = {}) {
  TempDir dir;
  const std::string msg = config_error_of([&] { load_text(dir, text, env); });
  const std::string path = (dir.fs_path() / "config.hcl").string();
  return msg.starts_with(path) ? "c.hcl" + msg.substr(path.size()) : msg;
}

TEST(ConfigRatls, OffByDefault) {
  TempDir dir;
  const Config c = load_text(dir, "");
  EXPECT_FALSE(c.ratls);
  EXPECT_EQ(c.tls_port, -1);
  EXPECT_EQ(c.ratls_cert_lifetime_seconds, 86400.0);
  EXPECT_EQ(c.effective_json()["ratls"], false);
}

TEST(ConfigRatls, WithTeeModeAndTlsPort) {
  TempDir dir;
  const Config c = load_text(dir,
                             "tee_mode = true\ntee_policy = \"development\"\nratls = true\ntls_port = 0\n"
                             "ratls_cert_lifetime_seconds = 3600\n");
  EXPECT_TRUE(c.ratls);
  EXPECT_EQ(c.tls_port, 0);
  EXPECT_EQ(c.ratls_cert_lifetime_seconds, 3600.0);
  EXPECT_EQ(c.effective_json()["tls_port"], 0);
  EXPECT_EQ(c.effective_json()["ratls"], true);
  const Config e = load_text(dir, "",
                             {{"A3S_POWER_TEE_MODE", "1"},
                              {"A3S_POWER_TEE_POLICY", "development"},
                              {"A3S_POWER_RATLS", "true"},
                              {"A3S_POWER_TLS_PORT", "8443"}});
  EXPECT_EQ(e.tls_port, 8443);
}

TEST(ConfigRatls, RatlsWithoutTeeModeIsAnError) {
  EXPECT_EQ(error_of("ratls = true\ntls_port = 8443\n"),
            "'ratls' needs tee_mode = true (the certificate carries attestation evidence)");
}

TEST(ConfigRatls, RatlsWithoutTlsPortIsAnError) {
  EXPECT_EQ(error_of("tee_mode = true\nratls = true\n"),
            "'ratls' needs 'tls_port' (the port of the RA-TLS listener; 0 = ephemeral)");
}

TEST(ConfigRatls, TlsPortWithoutRatlsIsAnError) {
  EXPECT_EQ(error_of("tls_port = 8443\n"),
            "'tls_port' needs ratls = true: only RA-TLS certificates (generated in the TEE) are supported");
}

TEST(ConfigRatls, TlsPortMustDifferFromPort) {
  EXPECT_EQ(error_of("tee_mode = true\ntee_policy = \"development\"\nratls = true\nport = 8443\ntls_port = 8443\n"),
            "'tls_port' and 'port' are both 8443: the RA-TLS listener needs a port of its own");
  Env env;
  env["A3S_POWER_PORT"] = "0";  // both ephemeral: two different ports
  TempDir dir;
  const Config c = load_text(dir, "tee_mode = true\ntee_policy = \"development\"\nratls = true\ntls_port = 0\n", env);
  EXPECT_EQ(c.tls_port, 0);
}

TEST(ConfigRatls, LifetimeIsChecked) {
  EXPECT_EQ(error_of("ratls_cert_lifetime_seconds = 0.5\n"),
            "c.hcl:1:31: 'ratls_cert_lifetime_seconds' is out of range (>= 1 and <= 31622400 seconds)");
  EXPECT_EQ(error_of("tls_port = 70000\n"), "c.hcl:1:12: 'tls_port' is out of range (0..65535)");
}

TEST(ConfigVsock, OffByDefaultAndA32BitPort) {
  TempDir dir;
  EXPECT_EQ(load_text(dir, "").vsock_port, -1);
  EXPECT_EQ(load_text(dir, "").effective_json()["vsock_port"], -1);
  const Config c = load_text(dir, "vsock_port = 4294967294\n");
  EXPECT_EQ(c.vsock_port, 4294967294LL);
  EXPECT_EQ(c.effective_json()["vsock_port"], 4294967294LL);
  EXPECT_EQ(load_text(dir, "vsock_port = 0\n").vsock_port, 0) << "0 = ephemeral";
  EXPECT_EQ(load_text(dir, "", {{"A3S_POWER_VSOCK_PORT", "5000"}}).vsock_port, 5000);
  // The same number as a TCP port is another port (another address family).
  EXPECT_EQ(load_text(dir, "port = 5000\nvsock_port = 5000\n").vsock_port, 5000);
}

}  // namespace
}  // namespace a3s::power::config::test
