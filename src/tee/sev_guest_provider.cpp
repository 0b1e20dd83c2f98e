#include "tee/sev_guest_provider.h"

#include <linux/sev-guest.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cstring>
#include <system_error>

#include "a3s/power/error.h"
#include "tee/evidence_check.h"
#include "a3s/power/error.h"
#include "attestation/sev_snp/report.h"

namespace a3s::power::tee {
namespace {

static_assert(sizeof(snp_report_resp) == kSnpResponseSize);
static_assert(kSnpResponseReportOffset + verify::sev_snp::kReportSize <= kSnpResponseSize);

[[noreturn]] void fail(const std::string& what) {
  throw Error(codes::kAttestationFailed, "/dev/sev-guest: " + what);
}

uint32_t le32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

}  // namespace

SevGuestProvider::SevGuestProvider(std::filesystem::path root, DeviceIoctl ioctl, uint32_t vmpl)
    : root_(std::move(root)), ioctl_(std::move(ioctl)), vmpl_(vmpl) {
  if (vmpl_ > 3) throw Error(codes::kInvalidArgument, "/dev/sev-guest: VMPL must be 0..3");
  if (!ioctl_) throw Error(codes::kInvalidArgument, "/dev/sev-guest: no device function");
}

std::filesystem::path SevGuestProvider::device_path(const std::filesystem::path& root) {
  return root / "dev/sev-guest";
}

bool SevGuestProvider::available(const std::filesystem::path& root) {
  std::error_code ec;
  return std::filesystem::exists(device_path(root), ec);
}

Evidence SevGuestProvider::get_evidence(const ReportData& report_data) {
  snp_report_req req{};
  std::copy(report_data.begin(), report_data.end(), req.user_data);
  req.vmpl = vmpl_;
  snp_report_resp resp{};
  snp_guest_request_ioctl io{};
  io.msg_version = 1;
  io.req_data = reinterpret_cast<uintptr_t>(&req);
  io.resp_data = reinterpret_cast<uintptr_t>(&resp);

  const int rc = ioctl_(device_path(root_), SNP_GET_REPORT, &io);
  if (rc != 0) fail(std::string("SNP_GET_REPORT: ") + std::strerror(rc));
  if (io.fw_error != 0 || io.vmm_error != 0)
    fail("SNP_GET_REPORT: firmware error " + std::to_string(io.fw_error) + ", VMM error " +
         std::to_string(io.vmm_error));
  const uint32_t status = le32(resp.data);
  const uint32_t size = le32(resp.data + 4);
  if (status != 0) fail("MSG_REPORT_RSP status " + std::to_string(status));
  if (size != verify::sev_snp::kReportSize)
    fail("MSG_REPORT_RSP report size " + std::to_string(size) + " (expected 1184)");

  Evidence ev;
  ev.tee_type = tee_types::kSevSnp;
  ev.format = evidence_formats::kSevSnpReport;
  ev.source = name();
  ev.verifiable_remotely = true;
  ev.raw.assign(resp.data + kSnpResponseReportOffset,
                resp.data + kSnpResponseReportOffset + verify::sev_snp::kReportSize);
  check_sev_snp_report(ev.raw, report_data);
  return ev;
}

}  // namespace a3s::power::tee
