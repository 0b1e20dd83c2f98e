// a3s-power-verify --ratls against a loopback TLS server in the test (support/fake_tls_server.h) that
// records what each connection sent: the certificate is verified on a handshake-only connection before
// the request with the API key goes out, pinned to the verified key; the accepted key is printed as a
// hex pin and as curl's sha256// base64 pin. A server whose certificate carries no evidence, or another
// key's evidence, never receives the API key.
#include <chrono>

#include "unit/verify/attestation/attestation_builder.h"
#include "support/fake_http_server.h"
#include "support/fake_tls_server.h"
#include "support/mitm_certificate.h"
#include "base/hex.h"
#include "crypto/base64.h"
#include "tee/ratls_certificate.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace ratls_cli_test {

using testing::FakeTlsServer;
using namespace verify_attestation_testing;

const tee::Nonce kRatlsNonce = test_nonce(61);
const std::string kRatlsKey = "sk-ratls-SECRET-canary-7373";

// A genuine RA-TLS identity (simulated evidence binding its key) and the nonce flow's answer for it.
struct RatlsServerIdentity {
  tee::SimulatedProvider provider;
  tee::RatlsCertificate cert = tee::issue_ratls_certificate(std::chrono::hours(1), [this](const crypto::Sha256Digest& spki) {
    tee::Claims c = make_claims(spki);
    c.tls_spki_sha256 = spki;
    return simulated_response(provider, c).dump();
  });

  std::string answer() {
    tee::Claims c = make_claims(kRatlsNonce);
    c.tls_spki_sha256 = cert.spki_sha256;
    return testing::http_response(200, "application/json", simulated_response(provider, c).dump());
  }
};

std::vector<std::string> ratls_args(const FakeTlsServer& server, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"--ratls", "--url", server.url(), "--model", kModel, "--expected-hash",
                                model_digest_arg(), "--nonce", to_hex(kRatlsNonce), "--api-key", kRatlsKey,
                                "--allow-simulated"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

bool any_holds(const std::vector<std::string>& received, const std::string& part) {
  for (const auto& r : received)
    if (r.find(part) != std::string::npos) return true;
  return false;
}

TEST(VerifyLiveRatls, AcceptedKeyIsPrintedAsHexAndCurlPinsAfterAHandshakeOnlyCheck) {
  RatlsServerIdentity id;
  FakeTlsServer server(id.cert.key.get(), id.cert.certificate.get(), id.answer());
  const CliResult r = run_verify(ratls_args(server, {"--format", "json"}));
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json j = parse_json_output(r);
  EXPECT_EQ(j["ratls_pin"]["sha256"], "sha256:" + to_hex(id.cert.spki_sha256));
  EXPECT_EQ(j["ratls_pin"]["curl"], "sha256//" + crypto::base64_encode(id.cert.spki_sha256));
  EXPECT_EQ(j["tee_policy"], "development");
  // First a connection that only shook hands (nothing sent), then the request with the key.
  const auto received = server.received();
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0], "");
  EXPECT_NE(received[1].find("Authorization: Bearer " + kRatlsKey), std::string::npos);
  EXPECT_EQ((r.out + r.err).find(kRatlsKey), std::string::npos);

  const CliResult text = run_verify(ratls_args(server));
  ASSERT_EQ(text.status, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("ratls_pin: sha256:" + to_hex(id.cert.spki_sha256) + "\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("curl_pin: sha256//" + crypto::base64_encode(id.cert.spki_sha256) + "\n"),
            std::string::npos)
      << text.out;
}

TEST(VerifyLiveRatls, NoPinIsPrintedForARejection) {
  RatlsServerIdentity id;
  FakeTlsServer server(id.cert.key.get(), id.cert.certificate.get(), id.answer());
  const CliResult r = run_verify(ratls_args(server, {"--format", "json", "--require-policy", "strict"}));
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  const nlohmann::json j = parse_json_output(r);
  EXPECT_EQ(j["failed_step"], "policy_mismatch");
  EXPECT_FALSE(j.contains("ratls_pin"));
}

// Certificates of a server that is not the attested one: the API key must never reach it.
TEST(VerifyLiveRatls, TheApiKeyNeverReachesAServerWhoseCertificateDoesNotVerify) {
  RatlsServerIdentity genuine;
  struct Case {
    bool copy_evidence;
    const char* failed_step;
  };
  for (const Case c : {Case{false, "ratls_extension_missing"}, Case{true, "tls_key_mismatch"}}) {
    const testing::MitmIdentity impostor = testing::mitm_identity(genuine.cert.certificate.get(), c.copy_evidence);
    // It answers any request with the genuine server's answer, as a relaying man in the middle would.
    FakeTlsServer server(impostor.key.get(), impostor.certificate.get(), genuine.answer());
    const CliResult r = run_verify(ratls_args(server, {"--format", "json"}));
    EXPECT_EQ(r.status, 3) << c.failed_step << r.out << r.err;
    EXPECT_EQ(parse_json_output(r)["failed_step"], c.failed_step) << r.out;
    EXPECT_TRUE(server.wait_for_connections(1, std::chrono::seconds(10))) << c.failed_step;
    EXPECT_GE(server.handshakes(), 1) << c.failed_step;
    EXPECT_FALSE(any_holds(server.received(), kRatlsKey)) << c.failed_step;
    EXPECT_FALSE(any_holds(server.received(), "GET ")) << c.failed_step << ": a request was sent";
  }
}

}  // namespace ratls_cli_test
}  // namespace a3s::power::verify_cli
