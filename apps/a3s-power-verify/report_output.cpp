#include "a3s-power-verify/report_output.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace a3s::power::verify::cli {

std::string describe_skipped(TeeType tee, const std::string& check) {
  if (check == "tcb")
    return tee == TeeType::kTdx ? "tcb (TCB status not checked: signatures, certificate chains and the QE identity only)"
                                : "tcb (signatures and certificate chains only)";
  if (check == "crl")
    return tee == TeeType::kSevSnp ? "crl (AMD's revocation list was not checked)"
                                   : "crl (no collateral: the PCK chain's CRLs were not applied)";
  return check;
}

void add_rejection(nlohmann::ordered_json& j, bool accepted, const std::string& failed_step,
                   const std::string& message) {
  if (accepted) return;
  j["failed_step"] = failed_step;
  j["message"] = message;
}

void print_verdict(const std::string& format, const std::string& json, const std::string& text) {
  if (format == "json") {
    std::printf("%s\n", json.c_str());
  } else {
    std::fputs(text.c_str(), stdout);
  }
  std::fflush(stdout);
}

void add_tdx_json(nlohmann::ordered_json& j, const std::optional<TdxMeasurements>& tdx,
                  const std::vector<std::string>& advisory_ids) {
  if (!tdx) return;
  nlohmann::ordered_json t;
  t["mrtd"] = tdx->mr_td;
  for (size_t i = 0; i < tdx->rtmr.size(); ++i) t["rtmr" + std::to_string(i)] = tdx->rtmr[i];
  t["mrconfigid"] = tdx->mr_config_id;
  t["mrowner"] = tdx->mr_owner;
  t["mrownerconfig"] = tdx->mr_owner_config;
  j["tdx"] = std::move(t);
  j["advisory_ids"] = advisory_ids;
}

std::string tdx_text(const std::optional<TdxMeasurements>& tdx, const std::vector<std::string>& advisory_ids) {
  if (!tdx) return {};
  std::string out = "mrtd: " + tdx->mr_td + "\n";
  for (size_t i = 0; i < tdx->rtmr.size(); ++i) out += "rtmr" + std::to_string(i) + ": " + tdx->rtmr[i] + "\n";
  out += "mrconfigid: " + tdx->mr_config_id + "\n";
  out += "mrowner: " + tdx->mr_owner + "\n";
  out += "mrownerconfig: " + tdx->mr_owner_config + "\n";
  if (!advisory_ids.empty()) {
    out += "advisory_ids:";
    for (size_t i = 0; i < advisory_ids.size(); ++i) out += (i == 0 ? " " : ", ") + advisory_ids[i];
    out += "\n";
  }
  return out;
}

nlohmann::ordered_json minimum_tcb_json(const std::string& tcb, const std::string& source,
                                        const std::string& date) {
  nlohmann::ordered_json j;
  j["source"] = source.empty() ? "none" : source;
  j["tcb"] = tcb;
  if (source == "default") j["table_date"] = date;
  return j;
}

std::string minimum_tcb_text(const std::string& tcb, const std::string& source, const std::string& date) {
  if (source == "default") return tcb + " (default table of " + date + ")";
  if (source == "given") return tcb + " (given with --min-tcb)";
  return "none";
}

std::string report_json(const Report& r) {
  nlohmann::ordered_json j;
  j["accepted"] = r.accepted;
  j["tee_type"] = std::string(to_string(r.tee_type));
  j["simulated"] = r.simulated;
  add_rejection(j, r.accepted, r.failed_step, r.message);
  j["measurement"] = r.measurement;
  j["report_data"] = r.report_data;
  j["tcb_status"] = r.tcb_status;
  j["skipped"] = r.skipped;
  add_tdx_json(j, r.tdx, r.advisory_ids);
  if (r.tee_type == TeeType::kSevSnp) {
    j["product"] = r.product;
    if (r.vmpl) j["vmpl"] = *r.vmpl;
    j["minimum_tcb"] = minimum_tcb_json(r.minimum_tcb, r.minimum_tcb_source, r.minimum_tcb_date);
  }
  j["warnings"] = r.warnings;
  return j.dump();
}

std::string report_text(const Report& r) {
  std::string out = r.accepted ? "accepted" : "rejected";
  const char* kind = r.tee_type == TeeType::kTdx      ? " quote"
                     : r.tee_type == TeeType::kSevSnp ? " report"
                                                      : " evidence";
  out += std::string(r.simulated ? ": SIMULATED " : ": ") + std::string(to_string(r.tee_type)) + kind + "\n";
  if (r.simulated)
    out += "warning: the report verifies under the simulated root: no hardware attests it\n";
  if (!r.accepted) out += "failed_step: " + r.failed_step + "\n";
  if (!r.measurement.empty()) out += "measurement: " + r.measurement + "\n";
  if (!r.report_data.empty()) out += "report_data: " + r.report_data + "\n";
  out += "tcb_status: " + r.tcb_status + "\n";
  out += tdx_text(r.tdx, r.advisory_ids);
  if (r.tee_type == TeeType::kSevSnp) {
    if (!r.product.empty()) out += "product: " + r.product + "\n";
    if (r.vmpl) out += "vmpl: " + std::to_string(*r.vmpl) + "\n";
    out += "minimum_tcb: " + minimum_tcb_text(r.minimum_tcb, r.minimum_tcb_source, r.minimum_tcb_date) + "\n";
  }
  for (const auto& w : r.warnings) out += "warning: " + w + "\n";
  for (const auto& s : r.skipped) out += "skipped: " + describe_skipped(r.tee_type, s) + "\n";
  return out;
}

}  // namespace a3s::power::verify::cli
