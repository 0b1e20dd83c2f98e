// TDX evidence through the tdx-guest driver (/dev/tdx_guest), for kernels without configfs-tsm.
//
// Source: Linux include/uapi/linux/tdx-guest.h: ioctl TDX_CMD_GET_REPORT0
// (_IOWR('T', 1, struct tdx_report_req {reportdata[64]; tdreport[1024]})). The driver only returns the
// TDREPORT_STRUCT, which is MAC'd for the local platform (verifiable by the TDX module and the Quoting
// Enclave, not by a remote party). Evidence is therefore marked `verifiable_remotely = false`,
// format "tdx-tdreport"; detection refuses it under the strict policy (detect.h).
// Errors: a failing ioctl or a TDREPORT without the requested report_data → Error(codes::kAttestationFailed).
#pragma once

#include <filesystem>

#include "tee/device_ioctl.h"
#include "tee/evidence.h"
#include "tee/tdx_summary.h"

namespace a3s::power::tee {

// struct tdx_report_req of the Linux UAPI (the header is not shipped by every distribution).
struct TdxReportReq {
  uint8_t reportdata[64];
  uint8_t tdreport[kTdReportSize];
};
static_assert(sizeof(TdxReportReq) == 64 + kTdReportSize);

// TDX_CMD_GET_REPORT0 = _IOWR('T', 1, struct tdx_report_req).
unsigned long tdx_cmd_get_report0();

class TdxGuestProvider final : public EvidenceProvider {
 public:
  explicit TdxGuestProvider(std::filesystem::path root = "/", DeviceIoctl ioctl = system_device_ioctl());

  static std::filesystem::path device_path(const std::filesystem::path& root);  // <root>/dev/tdx_guest
  static bool available(const std::filesystem::path& root);

  std::string name() const override { return "/dev/tdx_guest"; }
  Evidence get_evidence(const ReportData& report_data) override;  // tee_type "tdx", not verifiable

 private:
  std::filesystem::path root_;
  DeviceIoctl ioctl_;
};

}  // namespace a3s::power::tee
