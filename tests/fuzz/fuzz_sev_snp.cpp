// libFuzzer target for SEV-SNP evidence: the input is an ATTESTATION_REPORT (the first 1184 bytes,
// zero-padded when shorter) followed by a certificate table (the rest). Checked:
//   - parse_report either parses or throws Error; a parsed report serialises, and
//     serialize(parse(serialize(r))) == serialize(r) (parse → serialize → parse is stable);
//   - parse_cert_table either parses or gives std::nullopt with a message; a parsed table
//     serialises and parses again to the same certificates;
//   - verify_report never throws, with the table's endorsements (or, when the table is empty or
//     malformed, the VCEK of a fixed local key hierarchy) against that hierarchy's ARK as the only
//     trust anchor and at a fixed time;
//   - the parsed report re-signed by the hierarchy is verified again, so the policy steps after the
//     signature (TCB, debug, migration agent, VMPL, minimum TCB) see fuzzed fields too.
// The hierarchy is generated once per process. Seeds: tests/fuzz/seeds/sev_snp/.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "attestation/sev_snp/cert_table.h"
#include "attestation/sev_snp/report.h"
#include "attestation/simulated/local_key_hierarchy.h"
#include "verify/sev_snp/sev_snp_verify.h"

namespace {

using namespace a3s::power::verify::sev_snp;

const LocalKeyHierarchy& hierarchy() {
  static const LocalKeyHierarchy h(LeafSpec{.hw_id = std::vector<uint8_t>(64, 0x11)});
  return h;
}

VerifyOptions options() {
  VerifyOptions o;
  o.at = std::chrono::system_clock::now();
  o.anchors = hierarchy().anchors();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> report(kReportSize, 0);
  std::copy_n(data, std::min(size, kReportSize), report.begin());
  const std::span<const uint8_t> table_bytes =
      size > kReportSize ? std::span<const uint8_t>(data + kReportSize, size - kReportSize)
                         : std::span<const uint8_t>();

  std::optional<Report> parsed;
  try {
    parsed = parse_report(report);
  } catch (const a3s::power::Error& e) {
    if (e.what()[0] == '\0') __builtin_trap();
  }
  if (parsed) {
    const std::vector<uint8_t> once = serialize_report(*parsed);
    if (once.size() != kReportSize) __builtin_trap();
    if (serialize_report(parse_report(once)) != once) __builtin_trap();
  }

  Endorsements endorsements{hierarchy().vcek_pem, hierarchy().ask_pem};
  std::string error;
  if (const auto table = parse_cert_table(table_bytes, error)) {
    const auto again = parse_cert_table(serialize_cert_table(*table), error);
    if (!again || again->vcek != table->vcek || again->vlek != table->vlek || again->ask != table->ask ||
        again->ark != table->ark)
      __builtin_trap();
    if (!table->vcek.empty() || !table->vlek.empty()) endorsements = endorsements_from(*table);
  } else if (error.empty()) {
    __builtin_trap();
  }

  Policy policy;
  policy.default_minimum_tcb = (size & 1) != 0;
  policy.vmpl = 0;
  const VerifyOptions opts = options();
  (void)verify_report(report, endorsements, policy, opts);
  if (parsed) {
    const std::vector<uint8_t> signed_report = hierarchy().sign(*parsed);
    (void)verify_report(signed_report, {hierarchy().vcek_pem, hierarchy().ask_pem}, policy, opts);
  }
  return 0;
}
