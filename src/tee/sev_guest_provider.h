// SEV-SNP evidence through the sev-guest driver (/dev/sev-guest, SNP_GET_REPORT), for kernels without
// configfs-tsm.
//
// Source: Linux include/uapi/linux/sev-guest.h and Documentation/virt/coco/sev-guest.rst:
//   ioctl SNP_GET_REPORT (_IOWR('S', 0x0, struct snp_guest_request_ioctl)), msg_version 1,
//   req_data → struct snp_report_req {user_data[64] = report_data, vmpl, rsvd[28] = 0},
//   resp_data → struct snp_report_resp {data[4000]}; exitinfo2 = vmm_error << 32 | fw_error.
// The response data is the firmware's MSG_REPORT_RSP (AMD 56860, "MSG_REPORT_RSP Message Structure"):
//   0x00 STATUS u32 (0 = success, 0x16 = invalid parameters), 0x04 REPORT_SIZE u32 (0x4A0),
//   0x08–0x1F reserved, 0x20 the ATTESTATION_REPORT (1184 bytes).
// A non-zero ioctl result, fw_error or vmm_error, a non-zero STATUS, a REPORT_SIZE other than 1184, or
// a report that does not parse / carry the requested report_data → Error(codes::kAttestationFailed).
// SNP_GET_REPORT returns no certificate table: Evidence::certificates stays empty (the verifier fetches
// the VCEK from AMD KDS by CHIP_ID and REPORTED_TCB).
#pragma once

#include <cstdint>
#include <filesystem>

#include "tee/device_ioctl.h"
#include "tee/evidence.h"

namespace a3s::power::tee {

inline constexpr size_t kSnpResponseSize = 4000;          // bytes, struct snp_report_resp
inline constexpr size_t kSnpResponseReportOffset = 0x20;  // ATTESTATION_REPORT inside MSG_REPORT_RSP

class SevGuestProvider final : public EvidenceProvider {
 public:
  // `vmpl`: the VMPL to put in the report (0..3).
  explicit SevGuestProvider(std::filesystem::path root = "/", DeviceIoctl ioctl = system_device_ioctl(),
                            uint32_t vmpl = 0);

  static std::filesystem::path device_path(const std::filesystem::path& root);  // <root>/dev/sev-guest
  static bool available(const std::filesystem::path& root);

  std::string name() const override { return "/dev/sev-guest"; }
  Evidence get_evidence(const ReportData& report_data) override;  // tee_type "sev-snp", verifiable

 private:
  std::filesystem::path root_;
  DeviceIoctl ioctl_;
  uint32_t vmpl_;
};

}  // namespace a3s::power::tee
