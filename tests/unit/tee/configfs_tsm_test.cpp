// configfs-tsm on a fake tree: the provider runs its real code path (mkdir, write inblob, read provider /
// outblob / auxblob / generation) against a temporary directory whose outblob is recorded hardware
// evidence (the GCP SEV-SNP report, the Edgeless TDX quote). A plain directory cannot create configfs
// attributes on mkdir, so the tests pre-create the entry and its attribute files and run the provider
// with use_existing_entry; the mkdir / cleanup path of fresh entries is tested separately.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "a3s/power/error.h"
#include "tee/configfs_tsm_provider.h"
#include "tee/tdx_summary.h"
#include "a3s/power/error.h"
#include "expect_attestation_failed.h"
#include "tee_test_data.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::tee {
namespace {

namespace fs = std::filesystem;
using namespace testing;

constexpr const char* kEntry = "fake-entry";

// <root>/sys/kernel/config/tsm/report/<entry>/{inblob, provider, outblob, generation[, auxblob]}.
fs::path make_entry(const fs::path& root, const std::string& provider, const std::vector<uint8_t>& outblob,
                    const std::vector<uint8_t>* auxblob = nullptr) {
  const fs::path entry = ConfigfsTsmProvider::report_dir(root) / kEntry;
  fs::create_directories(entry);
  write_text(entry / "inblob", "");
  write_text(entry / "provider", provider + "\n");
  write_bytes(entry / "outblob", outblob);
  write_text(entry / "generation", "1\n");
  if (auxblob) write_bytes(entry / "auxblob", *auxblob);
  return entry;
}

ConfigfsTsmOptions existing_entry(const fs::path& root) {
  ConfigfsTsmOptions o;
  o.root = root;
  o.entry_name = kEntry;
  o.use_existing_entry = true;
  return o;
}

using testing::expect_attestation_failed;

TEST(ConfigfsTsm, RealGcpSevSnpReportParses) {
  TempRoot root;
  const std::vector<uint8_t> aux = {1, 2, 3};
  const fs::path entry = make_entry(root.path(), "sev_guest", gcp_snp_report(), &aux);
  ConfigfsTsmProvider provider(existing_entry(root.path()));
  ASSERT_TRUE(ConfigfsTsmProvider::available(root.path()));

  const ReportData rd = report_data_from_hex(kGcpReportData);
  const Evidence ev = provider.get_evidence(rd);
  EXPECT_EQ(ev.tee_type, "sev-snp");
  EXPECT_EQ(ev.format, "sev-snp-report");
  EXPECT_EQ(ev.source, "configfs-tsm");
  EXPECT_TRUE(ev.verifiable_remotely);
  EXPECT_FALSE(ev.simulated);
  EXPECT_EQ(ev.certificates, aux);
  EXPECT_EQ(ev.raw, gcp_snp_report());

  const verify::sev_snp::Report r = verify::sev_snp::parse_report(ev.raw);
  EXPECT_EQ(r.version, 5u);
  EXPECT_EQ(r.vmpl, 1u);
  EXPECT_EQ(hex(r.measurement), kGcpMeasurement);
  EXPECT_EQ(hex(r.report_data), kGcpReportData);

  // The provider wrote the 64-byte report_data to inblob and left the caller's entry in place.
  EXPECT_EQ(read_bytes(entry / "inblob"), std::vector<uint8_t>(rd.begin(), rd.end()));
  EXPECT_TRUE(fs::is_directory(entry));
}

TEST(ConfigfsTsm, RealTdxQuoteParses) {
  TempRoot root;
  make_entry(root.path(), "tdx_guest", edgeless_tdx_quote());
  ConfigfsTsmProvider provider(existing_entry(root.path()));
  const Evidence ev = provider.get_evidence(edgeless_report_data());
  EXPECT_EQ(ev.tee_type, "tdx");
  EXPECT_EQ(ev.format, "tdx-quote");
  EXPECT_TRUE(ev.verifiable_remotely);
  EXPECT_TRUE(ev.certificates.empty());

  const TdxSummary s = read_tdx_quote_summary(ev.raw);
  EXPECT_EQ(s.version, 4);
  EXPECT_EQ(hex(s.mrtd), kEdgelessMrtd);
  EXPECT_EQ(s.report_data, edgeless_report_data());
}

TEST(ConfigfsTsm, EvidenceWithoutTheRequestedReportDataIsRefused) {
  TempRoot root;
  make_entry(root.path(), "sev_guest", gcp_snp_report());
  ConfigfsTsmProvider provider(existing_entry(root.path()));
  ReportData other = report_data_from_hex(kGcpReportData);
  other[63] ^= 1;
  expect_attestation_failed(provider, other);
}

TEST(ConfigfsTsm, MalformedOutblobUnknownProviderAndBadGenerationAreRefused) {
  const ReportData rd = report_data_from_hex(kGcpReportData);
  {
    TempRoot root;
    std::vector<uint8_t> truncated = gcp_snp_report();
    truncated.pop_back();
    make_entry(root.path(), "sev_guest", truncated);
    ConfigfsTsmProvider provider(existing_entry(root.path()));
    expect_attestation_failed(provider, rd);
  }
  {
    TempRoot root;
    make_entry(root.path(), "other_guest", gcp_snp_report());
    ConfigfsTsmProvider provider(existing_entry(root.path()));
    expect_attestation_failed(provider, rd);
  }
  {
    TempRoot root;
    const fs::path entry = make_entry(root.path(), "sev_guest", gcp_snp_report());
    write_text(entry / "generation", "x\n");
    ConfigfsTsmProvider provider(existing_entry(root.path()));
    expect_attestation_failed(provider, rd);
  }
  {
    TempRoot root;
    const fs::path entry = make_entry(root.path(), "sev_guest", gcp_snp_report());
    fs::remove(entry / "outblob");
    ConfigfsTsmProvider provider(existing_entry(root.path()));
    expect_attestation_failed(provider, rd);
  }
}

TEST(ConfigfsTsm, FreshEntryIsCreatedAndRemoved) {
  // A plain directory gets no attributes on mkdir: writing inblob fails (no O_CREAT), and the entry the
  // provider made is removed again.
  TempRoot root;
  fs::create_directories(ConfigfsTsmProvider::report_dir(root.path()));
  ConfigfsTsmOptions o;
  o.root = root.path();
  ConfigfsTsmProvider provider(o);
  expect_attestation_failed(provider, ReportData{});
  EXPECT_TRUE(fs::is_empty(ConfigfsTsmProvider::report_dir(root.path())));
}

TEST(ConfigfsTsm, ExistingEntryIsNotUsedUnlessAskedFor) {
  TempRoot root;
  const fs::path entry = make_entry(root.path(), "sev_guest", gcp_snp_report());
  ConfigfsTsmOptions o;
  o.root = root.path();
  o.entry_name = kEntry;
  ConfigfsTsmProvider provider(o);
  expect_attestation_failed(provider, report_data_from_hex(kGcpReportData));
  EXPECT_TRUE(read_bytes(entry / "inblob").empty());  // untouched
}

// Serves one read of a FIFO outblob per provider attempt. An attempt starts with the provider's write of
// inblob (64 bytes), which the server waits for and consumes (truncates), so each round meets a fresh
// open of outblob. In rounds where bump[i] is true, `generation` is rewritten after the provider opened
// outblob and before it sees EOF, as a concurrent writer of the entry would cause. Gives up (returns)
// when a step does not happen within 5 s.
void serve_outblob(const fs::path& entry, const std::vector<uint8_t>& bytes, std::vector<bool> bump) {
  for (size_t round = 0; round < bump.size(); ++round) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    std::error_code ec;
    while (fs::file_size(entry / "inblob", ec) != 64) {
      if (std::chrono::steady_clock::now() > deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    fs::resize_file(entry / "inblob", 0, ec);
    int fd = -1;
    while ((fd = ::open((entry / "outblob").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
      if (std::chrono::steady_clock::now() > deadline) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::fcntl(fd, F_SETFL, 0);
    if (bump[round]) write_text(entry / "generation", std::to_string(round + 2) + "\n");
    size_t off = 0;
    while (off < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::close(fd);
  }
}

fs::path make_fifo_entry(const fs::path& root) {
  const fs::path entry = make_entry(root, "sev_guest", {});
  fs::remove(entry / "outblob");
  if (::mkfifo((entry / "outblob").c_str(), 0600) != 0) throw std::runtime_error("mkfifo");
  return entry;
}

TEST(ConfigfsTsm, GenerationChangeIsRetried) {
  TempRoot root;
  const fs::path entry = make_fifo_entry(root.path());
  std::thread server(serve_outblob, entry, gcp_snp_report(), std::vector<bool>{true, false});
  ConfigfsTsmProvider provider(existing_entry(root.path()));
  Evidence ev;
  EXPECT_NO_THROW(ev = provider.get_evidence(report_data_from_hex(kGcpReportData)));
  server.join();
  EXPECT_EQ(ev.raw, gcp_snp_report());
}

TEST(ConfigfsTsm, GenerationChangingOnEveryAttemptFails) {
  TempRoot root;
  const fs::path entry = make_fifo_entry(root.path());
  std::thread server(serve_outblob, entry, gcp_snp_report(), std::vector<bool>{true, true, true});
  ConfigfsTsmProvider provider(existing_entry(root.path()));  // 3 attempts
  try {
    provider.get_evidence(report_data_from_hex(kGcpReportData));
    ADD_FAILURE() << "evidence accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kAttestationFailed);
    EXPECT_NE(std::string(e.what()).find("generation"), std::string::npos) << e.what();
  }
  server.join();
}

TEST(ConfigfsTsm, EntryNameMustBeOneComponent) {
  ConfigfsTsmOptions o;
  o.entry_name = "../x";
  EXPECT_THROW(ConfigfsTsmProvider{o}, Error);
}

}  // namespace
}  // namespace a3s::power::tee
