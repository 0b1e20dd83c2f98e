#include "verify/online/kds_client.h"

#include <algorithm>
#include <cstdio>

#include "a3s/power/error.h"
#include "base/hex.h"

namespace a3s::power::verify::online {
namespace {

AmdProduct product_of_report(const sev_snp::Report& report) {
  if (report.version < 3) return AmdProduct::kMilan;  // no CPUID fields: Milan, as the pinned roots
  const uint8_t family = report.cpuid_fam_id, model = report.cpuid_mod_id;
  if (const auto product = sev_snp::product_from_cpuid(family, model)) return *product;
  char what[80];
  std::snprintf(what, sizeof what, "CPUID family 0x%02x model 0x%02x", family, model);
  throw Error(codes::kInvalidArgument,
              std::string("no AMD KDS product is known for the report's ") + what + "; give --vcek");
}

std::string spl(uint8_t value) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02u", static_cast<unsigned>(value));
  return buf;
}

}  // namespace

AmdProduct product_for(const sev_snp::Report& report) {
  return product_of_report(report);
}

VcekRequest vcek_request_for(const sev_snp::Report& report) {
  if (report.signing_key != static_cast<uint8_t>(sev_snp::SigningKey::kVcek))
    throw Error(codes::kInvalidArgument,
                "the report is not signed with a VCEK (SIGNING_KEY " + std::to_string(report.signing_key) +
                    "); AMD KDS serves VCEKs only: give the signing certificate with --vcek");
  if (std::all_of(report.chip_id.begin(), report.chip_id.end(), [](uint8_t b) { return b == 0; }))
    throw Error(codes::kInvalidArgument,
                "the report's CHIP_ID is masked (all zero), so its VCEK cannot be looked up; give --vcek");
  VcekRequest r;
  r.product = product_for(report);
  const std::size_t hwid_size = r.product == AmdProduct::kTurin ? 8 : report.chip_id.size();
  r.hwid.assign(report.chip_id.begin(), report.chip_id.begin() + static_cast<std::ptrdiff_t>(hwid_size));
  r.tcb = report.reported();
  return r;
}

std::string vcek_path(const VcekRequest& request) {
  std::string path = "/vcek/v1/" + std::string(product_name(request.product)) + "/" + to_hex(request.hwid) + "?";
  if (request.product == AmdProduct::kTurin) path += "fmcSPL=" + spl(request.tcb.fmc) + "&";
  path += "blSPL=" + spl(request.tcb.boot_loader) + "&teeSPL=" + spl(request.tcb.tee) +
          "&snpSPL=" + spl(request.tcb.snp) + "&ucodeSPL=" + spl(request.tcb.microcode);
  return path;
}

std::string cert_chain_path(AmdProduct product) {
  return "/vcek/v1/" + std::string(product_name(product)) + "/cert_chain";
}

std::string crl_path(AmdProduct product) {
  return "/vcek/v1/" + std::string(product_name(product)) + "/crl";
}

}  // namespace a3s::power::verify::online
