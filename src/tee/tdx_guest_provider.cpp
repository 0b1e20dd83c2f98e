#include "tee/tdx_guest_provider.h"

#include <sys/ioctl.h>

#include <algorithm>
#include <cstring>
#include <system_error>

#include "a3s/power/error.h"
#include "tee/evidence_check.h"
#include "a3s/power/error.h"

namespace a3s::power::tee {

unsigned long tdx_cmd_get_report0() {
  return _IOWR('T', 1, TdxReportReq);
}

TdxGuestProvider::TdxGuestProvider(std::filesystem::path root, DeviceIoctl ioctl)
    : root_(std::move(root)), ioctl_(std::move(ioctl)) {
  if (!ioctl_) throw Error(codes::kInvalidArgument, "/dev/tdx_guest: no device function");
}

std::filesystem::path TdxGuestProvider::device_path(const std::filesystem::path& root) {
  return root / "dev/tdx_guest";
}

bool TdxGuestProvider::available(const std::filesystem::path& root) {
  std::error_code ec;
  return std::filesystem::exists(device_path(root), ec);
}

Evidence TdxGuestProvider::get_evidence(const ReportData& report_data) {
  TdxReportReq req{};
  std::copy(report_data.begin(), report_data.end(), req.reportdata);
  const int rc = ioctl_(device_path(root_), tdx_cmd_get_report0(), &req);
  if (rc != 0)
    throw Error(codes::kAttestationFailed,
                std::string("/dev/tdx_guest: TDX_CMD_GET_REPORT0: ") + std::strerror(rc));
  Evidence ev;
  ev.tee_type = tee_types::kTdx;
  ev.format = evidence_formats::kTdReport;
  ev.source = name();
  ev.verifiable_remotely = false;
  ev.raw.assign(req.tdreport, req.tdreport + kTdReportSize);
  check_tdreport(ev.raw, report_data);
  return ev;
}

}  // namespace a3s::power::tee
