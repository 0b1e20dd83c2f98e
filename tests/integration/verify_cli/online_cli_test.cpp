// a3s-power-verify report --online: the SEV-SNP VCEK from an AMD KDS and the TDX collateral from an
// Intel PCS, both played by a loopback server (support/fake_http_server.h) serving the shared test data at
// the paths the AMD and Intel specifications give; the endorsement cache; network failures.
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "attestation/simulated/local_key_hierarchy.h"
#include "support/fake_http_server.h"
#include "verify_cli_run.h"

namespace a3s::power::verify_cli {
namespace {

namespace sev_snp = a3s::power::verify::sev_snp;
using testing::HttpRoute;
using testing::RoutedHttpServer;
using testing::unused_port;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
}

// The first certificate of a PEM file, as DER (what KDS serves).
std::string pem_to_der(const std::string& path) {
  const std::string pem = read_text(path);
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (cert == nullptr) return "";
  unsigned char* der = nullptr;
  const int n = i2d_X509(cert, &der);
  std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(n));
  OPENSSL_free(der);
  X509_free(cert);
  return out;
}

std::string lower_hex(const std::vector<uint8_t>& bytes, std::size_t from, std::size_t count) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = from; i < from + count; ++i) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  return out;
}

// The KDS request for the GCP report, per AMD 57230: product Milan (CPUID family 0x19 model 0x01),
// hwid = CHIP_ID (report offset 0x1A0, 64 bytes), SPLs = REPORTED_TCB (offset 0x180: bl 4, tee 0,
// snp 27, ucode 222, as the VCEK's own extensions say), two digits at least.
std::string expected_vcek_target() {
  const std::vector<uint8_t> report = read_bytes(attestation("sev-snp/sev-gcp-reportdata.bin"));
  return "/vcek/v1/Milan/" + lower_hex(report, 0x1A0, 64) + "?blSPL=04&teeSPL=00&snpSPL=27&ucodeSPL=222";
}

// AMD's real CRL is signed by ARK-Milan and not part of the test data, so the real report is verified
// without it (--no-amd-crl); the CRL path is covered with a local key hierarchy below.
std::vector<std::string> snp_online_args(const std::string& kds_url, const std::string& cache_dir,
                                         bool with_crl = false) {
  std::vector<std::string> a = {"report",      "--file",  attestation("sev-snp/sev-gcp-reportdata.bin"),
                                "--online",    "--kds-url", kds_url,
                                "--cache-dir", cache_dir, "--format", "json"};
  if (!with_crl) a.push_back("--no-amd-crl");
  return a;
}

TEST(VerifyCliOnlineSnp, VcekFetchedFromKdsAndReportAccepted) {
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}}});
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path()));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], true);
  EXPECT_EQ(j["tcb_status"], "meets_minimum");  // the default minimum TCB (Milan)
  EXPECT_EQ(j["measurement"], kSnpMeasurement);
  EXPECT_EQ(j["skipped"], nlohmann::json::array({"crl"}));
  EXPECT_EQ(kds.targets(), std::vector<std::string>{expected_vcek_target()});
}

TEST(VerifyCliOnlineSnp, CrlIsFetchedByDefaultAndMustBeSignedByTheArk) {
  // A CRL from another issuer (Intel's sample root CA CRL) where AMD's belongs.
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}},
                         {"/vcek/v1/Milan/crl", {200, "application/pkix-crl", {}, read_text(attestation("tdx/rootCaCrl.der"))}}});
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path(), /*with_crl=*/true));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "collateral_invalid");
  EXPECT_EQ(kds.targets(), (std::vector<std::string>{"/vcek/v1/Milan/crl", expected_vcek_target()}));
}

TEST(VerifyCliOnlineSnp, MissingCrlIsAnIoError) {
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}}});
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path(), /*with_crl=*/true));
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("/vcek/v1/Milan/crl: HTTP 404"), std::string::npos) << r.err;
}

TEST(VerifyCliOnlineSnp, SecondRunIsServedFromTheCache) {
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}}});
  ScratchDir cache;
  ASSERT_EQ(run_verify(snp_online_args(kds.url(), cache.path())).status, 0);
  ASSERT_EQ(kds.targets().size(), 1u);
  const CliResult again = run_verify(snp_online_args(kds.url(), cache.path()));
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(kds.targets().size(), 1u) << "the second run made a request";
  // The entry is named by the SHA-256 of the full URL and holds the DER as served.
  std::size_t bodies = 0;
  for (const auto& e : std::filesystem::directory_iterator(cache.path()))
    if (e.path().extension() == ".body") ++bodies;
  EXPECT_EQ(bodies, 1u);
}

TEST(VerifyCliOnlineSnp, CachedVcekIsUsedWithTheServerGone) {
  ScratchDir cache;
  std::string url;
  {
    RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                     pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}}});
    url = kds.url();
    ASSERT_EQ(run_verify(snp_online_args(url, cache.path())).status, 0);
  }
  // A VCEK is immutable for its chip and TCB: the cached one needs no network.
  const CliResult r = run_verify(snp_online_args(url, cache.path()));
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(VerifyCliOnlineSnp, WrongCertificateServedIsRejectedByTheChainCheck) {
  // The ASK served where the VCEK belongs: it is not issued for this chip and did not sign the report.
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-cert-chain.pem"))}}});
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path()));
  expect_one_line_error(r, 3);
  const auto j = parse_json_output(r);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["failed_step"], "chain_invalid");
}

TEST(VerifyCliOnlineSnp, AnEmptyCrlIsAFailureNotAMissingCrl) {
  // An empty 200 answer must not read as "no CRL given", which would skip the revocation check.
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}},
                         {"/vcek/v1/Milan/crl", {200, "application/pkix-crl", {}, ""}}});
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path(), /*with_crl=*/true));
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("/vcek/v1/Milan/crl: empty answer"), std::string::npos) << r.err;
}

TEST(VerifyCliOnlineSnp, AnEmptyVcekIsAFailureAndIsNotCached) {
  ScratchDir cache;
  {
    RoutedHttpServer empty({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {}, ""}}});
    const CliResult r = run_verify(snp_online_args(empty.url(), cache.path()));
    expect_one_line_error(r, 2);
    EXPECT_NE(r.err.find("empty answer"), std::string::npos) << r.err;
  }
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}}});
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path()));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(kds.targets().size(), 1u) << "the empty answer was served from the cache";
}

TEST(VerifyCliOnlineSnp, EndorsementsOfARejectedRunAreFetchedAgainNextTime) {
  ScratchDir cache;
  {
    // A mirror serving the ASK where the VCEK belongs: rejected, and the entry is not kept.
    RoutedHttpServer wrong({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                       pem_to_der(attestation("sev-snp/sev-gcp-cert-chain.pem"))}}});
    const CliResult r = run_verify(snp_online_args(wrong.url(), cache.path()));
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(parse_json_output(r)["failed_step"], "chain_invalid");
  }
  EXPECT_TRUE(std::filesystem::is_empty(cache.path()));
  RoutedHttpServer kds({{expected_vcek_target(), {200, "application/x-x509-ca-cert", {},
                                                   pem_to_der(attestation("sev-snp/sev-gcp-vcek.pem"))}}});
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path()));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(kds.targets().size(), 1u);
}

TEST(VerifyCliOnlineSnp, ServerDownIsAnIoError) {
  ScratchDir cache;
  const std::string url = "http://127.0.0.1:" + std::to_string(unused_port());
  const CliResult r = run_verify(snp_online_args(url, cache.path()));
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("GET " + url + "/vcek/v1/Milan/"), std::string::npos) << r.err;
}

TEST(VerifyCliOnlineSnp, HttpErrorStatusIsAnIoError) {
  RoutedHttpServer kds({});  // 404 for everything
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args(kds.url(), cache.path()));
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("HTTP 404"), std::string::npos) << r.err;
  // A failure is not cached.
  EXPECT_TRUE(std::filesystem::is_empty(cache.path()));
}

TEST(VerifyCliOnlineSnp, OfflineIsTheDefault) {
  RoutedHttpServer kds({});
  const CliResult r = run_verify({"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--format", "json"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "certificate_missing");
  EXPECT_TRUE(kds.targets().empty());
}

TEST(VerifyCliOnlineSnp, GivenVcekIsNotFetched) {
  RoutedHttpServer kds({});
  ScratchDir cache;
  auto args = snp_online_args(kds.url(), cache.path());
  args.insert(args.end(), {"--vcek", attestation("sev-snp/sev-gcp-vcek.pem")});
  const CliResult r = run_verify(args);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(kds.targets().empty());
}

TEST(VerifyCliOnlineSnp, UrlFlagsNeedOnline) {
  const CliResult r = run_verify({"report", "--file", attestation("sev-snp/sev-gcp-reportdata.bin"), "--kds-url",
                                  "http://127.0.0.1:1"});
  expect_one_line_error(r, 2);
}

TEST(VerifyCliOnlineSnp, PlainHttpToARemoteHostIsRefused) {
  ScratchDir cache;
  const CliResult r = run_verify(snp_online_args("http://kds.example.com", cache.path()));
  expect_one_line_error(r, 2);
  EXPECT_TRUE(r.out.empty());
}

// A report signed by a locally generated ARK → ASK → VCEK hierarchy (the ARK passed as --root), so that
// a CRL signed by that ARK can be served.
struct LocalSnp {
  sev_snp::LeafSpec spec;
  std::unique_ptr<sev_snp::LocalKeyHierarchy> chain;
  ScratchDir files;
  std::string report, ark, ask, vcek_target;

  LocalSnp() {
    for (std::size_t i = 0; i < 64; ++i) spec.hw_id.push_back(static_cast<uint8_t>(0x40 + i));
    chain = std::make_unique<sev_snp::LocalKeyHierarchy>(spec);
    sev_snp::Report r;
    r.version = 5;
    r.cpuid_fam_id = 0x19;
    r.cpuid_mod_id = 0x01;
    r.reported_tcb = sev_snp::encode_tcb(spec.tcb, sev_snp::TcbLayout::kMilanGenoa);
    r.current_tcb = r.committed_tcb = r.launch_tcb = r.reported_tcb;
    std::copy(spec.hw_id.begin(), spec.hw_id.end(), r.chip_id.begin());
    report = files.write("report.bin", chain->sign(r));
    ark = files.write("ark.pem", std::vector<uint8_t>(chain->ark_pem.begin(), chain->ark_pem.end()));
    ask = files.write("ask.pem", std::vector<uint8_t>(chain->ask_pem.begin(), chain->ask_pem.end()));
    // LeafSpec's default TCB: bl 3, tee 0, snp 20, ucode 209.
    vcek_target = "/vcek/v1/Milan/" + lower_hex(spec.hw_id, 0, 64) + "?blSPL=03&teeSPL=00&snpSPL=20&ucodeSPL=209";
  }

  std::map<std::string, HttpRoute> routes(const std::vector<uint8_t>& crl) const {
    return {{vcek_target, {200, "application/x-x509-ca-cert", {},
                           std::string(chain->vcek_der.begin(), chain->vcek_der.end())}},
            {"/vcek/v1/Milan/crl", {200, "application/pkix-crl", {}, std::string(crl.begin(), crl.end())}}};
  }

  std::vector<std::string> args(const std::string& url, const std::string& cache) const {
    // The local chain's TCB is below the default minimum table's Milan entry: give its own minimum.
    return {"report", "--file", report, "--root", ark, "--cert-chain", ask, "--min-tcb", "bl=3,tee=0,snp=20,ucode=209",
            "--online", "--kds-url", url, "--cache-dir", cache, "--format", "json"};
  }
};

TEST(VerifyCliOnlineSnp, CrlFromKdsIsCheckedAgainstTheArk) {
  const LocalSnp local;
  RoutedHttpServer kds(local.routes(local.chain->ark_crl({})));
  ScratchDir cache;
  const CliResult r = run_verify(local.args(kds.url(), cache.path()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse_json_output(r)["skipped"], nlohmann::json::array());  // revocation was checked
  EXPECT_EQ(kds.targets(), (std::vector<std::string>{"/vcek/v1/Milan/crl", local.vcek_target}));
  // Both are cached: the CRL until its nextUpdate, the VCEK forever.
  EXPECT_EQ(run_verify(local.args(kds.url(), cache.path())).status, 0);
  EXPECT_EQ(kds.targets().size(), 2u);
}

TEST(VerifyCliOnlineSnp, RevokedAskInTheFetchedCrlIsRejected) {
  const LocalSnp local;
  RoutedHttpServer kds(local.routes(local.chain->ark_crl({local.chain->ask_der})));
  ScratchDir cache;
  const CliResult r = run_verify(local.args(kds.url(), cache.path()));
  expect_one_line_error(r, 3);
  EXPECT_EQ(parse_json_output(r)["failed_step"], "certificate_revoked");
}

TEST(VerifyCliOnlineSnp, ExpiredCrlIsNotCachedAndIsRejected) {
  const LocalSnp local;
  RoutedHttpServer kds(local.routes(local.chain->ark_crl({}, -1)));
  ScratchDir cache;
  EXPECT_EQ(parse_json_output(run_verify(local.args(kds.url(), cache.path())))["failed_step"], "collateral_expired");
  run_verify(local.args(kds.url(), cache.path()));
  // The CRL is fetched again each time (its nextUpdate has passed); the VCEK only once.
  EXPECT_EQ(kds.targets(), (std::vector<std::string>{"/vcek/v1/Milan/crl", local.vcek_target, "/vcek/v1/Milan/crl"}));
}

// ---- TDX: Intel PCS v4 ----

// Percent-encoding of a PEM chain, as PCS sends issuer-chain headers.
std::string url_encode(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// The sample quote's PCK certificate has FMSPC ed742af8adf5 and is issued by the PCK Processor CA.
const char* kTcbTarget = "/tdx/certification/v4/tcb?fmspc=ED742AF8ADF5";
const char* kQeTarget = "/tdx/certification/v4/qe/identity";
const char* kPckCrlTarget = "/sgx/certification/v4/pckcrl?ca=processor&encoding=der";
const char* kRootCrlTarget = "/sgx/certification/v4/rootcacrl";

std::map<std::string, HttpRoute> pcs_routes(const std::string& tcb_info_json) {
  const std::string chain = url_encode(read_text(attestation("tdx/tcbSignChain.pem")));
  const std::string pck_chain = url_encode(read_text(attestation("tdx/pckSignChain.pem")));
  return {
      {kTcbTarget, {200, "application/json", {{"TCB-Info-Issuer-Chain", chain}}, tcb_info_json}},
      {kQeTarget,
       {200, "application/json", {{"SGX-Enclave-Identity-Issuer-Chain", chain}},
        read_text(attestation("tdx/qeIdentity.json"))}},
      {kPckCrlTarget,
       {200, "application/pkix-crl", {{"SGX-PCK-CRL-Issuer-Chain", pck_chain}},
        read_text(attestation("tdx/intermediateCaCrl.der"))}},
      {kRootCrlTarget, {200, "application/pkix-crl", {}, read_text(attestation("tdx/rootCaCrl.der"))}},
  };
}

std::vector<std::string> sample_args(std::vector<std::string> extra) {
  std::vector<std::string> a = {"report",       "--file", attestation("tdx/quote.dat"), "--cert-chain",
                                attestation("tdx/pckCert.pem"), "--cert-chain", attestation("tdx/pckSignChain.pem"),
                                "--root",       attestation("tdx/trustedRootCaCert.pem"), "--at", "2025-09-01",
                                "--format",     "json"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

void expect_same_report(const CliResult& online, const CliResult& offline) {
  EXPECT_EQ(online.status, offline.status) << online.err;
  EXPECT_EQ(parse_json_output(online), parse_json_output(offline));
  EXPECT_EQ(online.err, offline.err);
}

TEST(VerifyCliOnlineTdx, PcsCollateralGivesTheSameResultAsTheDirectory) {
  RoutedHttpServer pcs(pcs_routes(read_text(attestation("tdx/tcbInfo.json"))));
  ScratchDir cache;
  const CliResult online =
      run_verify(sample_args({"--online", "--pcs-url", pcs.url(), "--cache-dir", cache.path()}));
  const CliResult offline = run_verify(sample_args({"--collateral", attestation("tdx")}));
  expect_same_report(online, offline);
  // Intel's sample QE Identity does not match the sample quote's QE: the platform TCB (from the
  // fetched TCB Info) passed and every CRL was applied.
  const auto j = parse_json_output(online);
  EXPECT_EQ(j["failed_step"], "qe_identity_mismatch");
  EXPECT_EQ(j["tcb_status"], "UpToDate");
  EXPECT_EQ(j["skipped"], nlohmann::json::array());
  EXPECT_EQ(pcs.targets(), (std::vector<std::string>{kTcbTarget, kQeTarget, kPckCrlTarget, kRootCrlTarget}));
}

TEST(VerifyCliOnlineTdx, SecondRunIsServedFromTheCacheUntilNextUpdate) {
  RoutedHttpServer pcs(pcs_routes(read_text(attestation("tdx/tcbInfo.json"))));
  ScratchDir cache;
  const auto args = sample_args({"--online", "--pcs-url", pcs.url(), "--cache-dir", cache.path()});
  const CliResult first = run_verify(args);
  ASSERT_EQ(pcs.targets().size(), 4u);
  const CliResult second = run_verify(args);
  EXPECT_EQ(pcs.targets().size(), 4u) << "the sample collateral's nextUpdate lies in the future";
  EXPECT_EQ(parse_json_output(second), parse_json_output(first));
}

TEST(VerifyCliOnlineTdx, TamperedTcbInfoFailsLikeATamperedFile) {
  std::string tcb = read_text(attestation("tdx/tcbInfo.json"));
  const auto pos = tcb.find("\"tcbEvaluationDataNumber\":0");
  ASSERT_NE(pos, std::string::npos);
  tcb.replace(pos, 27, "\"tcbEvaluationDataNumber\":9");
  RoutedHttpServer pcs(pcs_routes(tcb));
  ScratchDir cache, dir;
  for (const char* name : {"qeIdentity.json", "tcbSignChain.pem", "rootCaCrl.der", "intermediateCaCrl.der"})
    std::filesystem::copy_file(attestation(std::string("tdx/") + name), dir.path() + "/" + name);
  dir.write("tcbInfo.json", std::vector<uint8_t>(tcb.begin(), tcb.end()));
  const CliResult online =
      run_verify(sample_args({"--online", "--pcs-url", pcs.url(), "--cache-dir", cache.path()}));
  const CliResult offline = run_verify(sample_args({"--collateral", dir.path()}));
  expect_same_report(online, offline);
  EXPECT_EQ(online.status, 3);
  EXPECT_EQ(parse_json_output(online)["failed_step"], "collateral_invalid");
}

TEST(VerifyCliOnlineTdx, MissingIssuerChainHeaderIsAnIoError) {
  auto routes = pcs_routes(read_text(attestation("tdx/tcbInfo.json")));
  routes[kTcbTarget].headers.clear();
  RoutedHttpServer pcs(routes);
  ScratchDir cache;
  const CliResult r = run_verify(sample_args({"--online", "--pcs-url", pcs.url(), "--cache-dir", cache.path()}));
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find("tcb-info-issuer-chain"), std::string::npos) << r.err;
}

TEST(VerifyCliOnlineTdx, ServerDownIsAnIoError) {
  ScratchDir cache;
  const std::string url = "http://127.0.0.1:" + std::to_string(unused_port());
  const CliResult r = run_verify(sample_args({"--online", "--pcs-url", url, "--cache-dir", cache.path()}));
  expect_one_line_error(r, 2);
  EXPECT_NE(r.err.find(std::string("GET ") + url + kTcbTarget), std::string::npos) << r.err;
}

}  // namespace
}  // namespace a3s::power::verify_cli
