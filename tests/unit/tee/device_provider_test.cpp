// /dev/sev-guest (SNP_GET_REPORT) and /dev/tdx_guest (TDX_CMD_GET_REPORT0) with a fake device function
// that fills the driver's structures like the kernel does; the SNP response is built from the recorded
// GCP report at offset 0x20 of MSG_REPORT_RSP.
#include <gtest/gtest.h>
#include <linux/sev-guest.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#include "a3s/power/error.h"
#include "tee/sev_guest_provider.h"
#include "tee/tdx_guest_provider.h"
#include "a3s/power/error.h"
#include "expect_attestation_failed.h"
#include "tee_test_data.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::tee {
namespace {

namespace fs = std::filesystem;
using namespace testing;

struct FakeSnp {
  uint32_t status = 0;
  uint32_t report_size = 1184;
  size_t report_offset = 0x20;
  uint32_t fw_error = 0;
  int errno_result = 0;
  ReportData seen_user_data{};
  uint32_t seen_vmpl = 99;
  fs::path seen_device;

  DeviceIoctl fn() {
    return [this](const fs::path& device, unsigned long request, void* arg) -> int {
      seen_device = device;
      if (request != SNP_GET_REPORT) return ENOTTY;
      if (errno_result != 0) return errno_result;
      auto* io = static_cast<snp_guest_request_ioctl*>(arg);
      if (io->msg_version != 1) return EINVAL;
      auto* req = reinterpret_cast<snp_report_req*>(static_cast<uintptr_t>(io->req_data));
      auto* resp = reinterpret_cast<snp_report_resp*>(static_cast<uintptr_t>(io->resp_data));
      std::memcpy(seen_user_data.data(), req->user_data, 64);
      seen_vmpl = req->vmpl;
      std::memcpy(resp->data, &status, 4);
      std::memcpy(resp->data + 4, &report_size, 4);
      const std::vector<uint8_t> report = gcp_snp_report();
      std::memcpy(resp->data + report_offset, report.data(), report.size());
      io->fw_error = fw_error;
      return 0;
    };
  }
};

using testing::expect_attestation_failed;

TEST(SevGuest, ReportIsReadAtOffset0x20OfTheResponse) {
  FakeSnp fake;
  SevGuestProvider provider("/fake-root", fake.fn(), 1);
  const ReportData rd = report_data_from_hex(kGcpReportData);
  const Evidence ev = provider.get_evidence(rd);
  EXPECT_EQ(fake.seen_device, fs::path("/fake-root/dev/sev-guest"));
  EXPECT_EQ(fake.seen_user_data, rd);
  EXPECT_EQ(fake.seen_vmpl, 1u);
  EXPECT_EQ(ev.tee_type, "sev-snp");
  EXPECT_EQ(ev.source, "/dev/sev-guest");
  EXPECT_TRUE(ev.verifiable_remotely);
  EXPECT_EQ(ev.raw, gcp_snp_report());
  const verify::sev_snp::Report r = verify::sev_snp::parse_report(ev.raw);
  EXPECT_EQ(r.version, 5u);
  EXPECT_EQ(r.vmpl, 1u);
  EXPECT_EQ(hex(r.measurement), kGcpMeasurement);
}

TEST(SevGuest, ErrorsAreRefused) {
  const ReportData rd = report_data_from_hex(kGcpReportData);
  {
    FakeSnp fake;
    fake.report_offset = 0;  // a response read at the wrong offset does not yield the report
    fake.report_size = 1184;
    SevGuestProvider provider("/", fake.fn());
    // offset 0 overwrites STATUS / REPORT_SIZE with the report's first bytes (version 5, guest_svn 0)
    expect_attestation_failed(provider, rd);
  }
  {
    FakeSnp fake;
    fake.status = 0x16;
    SevGuestProvider provider("/", fake.fn());
    expect_attestation_failed(provider, rd);
  }
  {
    FakeSnp fake;
    fake.report_size = 1000;
    SevGuestProvider provider("/", fake.fn());
    expect_attestation_failed(provider, rd);
  }
  {
    FakeSnp fake;
    fake.fw_error = 0x16;
    SevGuestProvider provider("/", fake.fn());
    expect_attestation_failed(provider, rd);
  }
  {
    FakeSnp fake;
    fake.errno_result = EIO;
    SevGuestProvider provider("/", fake.fn());
    expect_attestation_failed(provider, rd);
  }
  {
    FakeSnp fake;  // the device answers with a report for other report_data
    SevGuestProvider provider("/", fake.fn());
    expect_attestation_failed(provider, ReportData{});
  }
  EXPECT_THROW(SevGuestProvider("/", FakeSnp().fn(), 4), Error);
}

TEST(SevGuest, RealDeviceCallReportsMissingDevice) {
  TempRoot root;
  SevGuestProvider provider(root.path());
  EXPECT_FALSE(SevGuestProvider::available(root.path()));
  expect_attestation_failed(provider, ReportData{});
}

TEST(TdxGuest, TdReportIsNotRemotelyVerifiable) {
  fs::path seen;
  const std::array<uint8_t, 48> mrtd = [] {
    std::array<uint8_t, 48> m{};
    for (size_t i = 0; i < m.size(); ++i) m[i] = static_cast<uint8_t>(0xA0 + i);
    return m;
  }();
  DeviceIoctl fake = [&](const fs::path& device, unsigned long request, void* arg) -> int {
    seen = device;
    if (request != tdx_cmd_get_report0()) return ENOTTY;
    auto* req = static_cast<TdxReportReq*>(arg);
    std::memcpy(req->tdreport + 128, req->reportdata, 64);  // REPORTMACSTRUCT.REPORTDATA
    std::memcpy(req->tdreport + 528, mrtd.data(), 48);      // TDINFO_STRUCT.MRTD
    return 0;
  };
  TdxGuestProvider provider("/r", fake);
  const ReportData rd = edgeless_report_data();
  const Evidence ev = provider.get_evidence(rd);
  EXPECT_EQ(seen, fs::path("/r/dev/tdx_guest"));
  EXPECT_EQ(ev.tee_type, "tdx");
  EXPECT_EQ(ev.format, "tdx-tdreport");
  EXPECT_FALSE(ev.verifiable_remotely);
  ASSERT_EQ(ev.raw.size(), kTdReportSize);
  const TdxSummary s = read_tdreport_summary(ev.raw);
  EXPECT_EQ(s.mrtd, mrtd);
  EXPECT_EQ(s.report_data, rd);
}

TEST(TdxGuest, DeviceErrorAndWrongReportDataAreRefused) {
  TdxGuestProvider failing("/", [](const fs::path&, unsigned long, void*) { return EIO; });
  expect_attestation_failed(failing, ReportData{});
  TdxGuestProvider ignoring("/", [](const fs::path&, unsigned long, void*) { return 0; });  // no REPORTDATA
  ReportData rd{};
  rd[0] = 1;
  expect_attestation_failed(ignoring, rd);
}

TEST(TdxMinimal, RejectsShortOrForeignQuotes) {
  std::vector<uint8_t> q = edgeless_tdx_quote();
  EXPECT_THROW(read_tdx_quote_summary(std::span(q).first(600)), Error);
  std::vector<uint8_t> sgx = q;
  sgx[4] = 0x00;  // TEE type SGX
  EXPECT_THROW(read_tdx_quote_summary(sgx), Error);
  std::vector<uint8_t> v3 = q;
  v3[0] = 3;
  EXPECT_THROW(read_tdx_quote_summary(v3), Error);
  EXPECT_THROW(read_tdreport_summary(std::span(q).first(1000)), Error);
}

}  // namespace
}  // namespace a3s::power::tee
