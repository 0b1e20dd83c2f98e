#include "tee/simulated_provider.h"

#include <openssl/rand.h>

#include <cstring>

#include "a3s/power/error.h"
#include "tee/evidence_check.h"
#include "attestation/sev_snp/cert_table.h"
#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::tee {
namespace {

namespace snp = verify::sev_snp;

const snp::TcbVersion kSimulatedTcb{0, 3, 0, 20, 209};  // a plausible Milan TCB (fmc, bl, tee, snp, ucode)

template <size_t N>
std::array<uint8_t, N> random_bytes() {
  std::array<uint8_t, N> out{};
  if (RAND_bytes(out.data(), static_cast<int>(N)) != 1)
    throw Error(codes::kInternal, "simulated TEE: RAND_bytes failed");
  return out;
}

snp::LeafSpec leaf_for(const snp::ChipId& chip_id) {
  snp::LeafSpec leaf;
  leaf.tcb = kSimulatedTcb;
  leaf.hw_id.assign(chip_id.begin(), chip_id.end());
  leaf.product_name = "Milan-B0";
  leaf.subject_cn = std::string(kSimulatedLabel) + " VCEK";
  return leaf;
}

snp::HierarchyNames simulated_names() {
  return {kSimulatedLabel, std::string(kSimulatedLabel) + " ARK", std::string(kSimulatedLabel) + " ASK"};
}

}  // namespace

SimulatedProvider::SimulatedProvider()
    : chip_id_(random_bytes<64>()), hierarchy_(leaf_for(chip_id_), simulated_names()) {}

snp::Measurement SimulatedProvider::measurement() {
  snp::Measurement m{};
  std::memcpy(m.data(), kSimulatedMeasurementText, std::strlen(kSimulatedMeasurementText));
  return m;
}

Evidence SimulatedProvider::get_evidence(const ReportData& report_data) {
  snp::Report r;
  r.version = 5;
  r.policy = snp::policy_bits::kReservedMustBeOne | snp::policy_bits::kSmt;
  r.vmpl = 0;
  r.signature_algo = snp::kSignatureAlgoEcdsaP384Sha384;
  r.signing_key = static_cast<uint8_t>(snp::SigningKey::kVcek);
  r.cpuid_fam_id = 0x19;  // Milan
  r.cpuid_mod_id = 0x01;
  const uint64_t tcb = snp::encode_tcb(kSimulatedTcb, snp::TcbLayout::kMilanGenoa);
  r.current_tcb = r.reported_tcb = r.committed_tcb = r.launch_tcb = tcb;
  r.chip_id = chip_id_;
  r.report_id = random_bytes<32>();
  r.measurement = measurement();
  std::copy(report_data.begin(), report_data.end(), r.report_data.begin());

  Evidence ev;
  ev.tee_type = tee_types::kSimulated;
  ev.format = evidence_formats::kSevSnpReport;
  ev.source = name();
  ev.verifiable_remotely = false;
  ev.simulated = true;
  ev.raw = hierarchy_.sign(r);
  snp::CertTable table;
  table.vcek.assign(hierarchy_.vcek_der.begin(), hierarchy_.vcek_der.end());
  table.ask.assign(hierarchy_.ask_der.begin(), hierarchy_.ask_der.end());
  table.ark.assign(hierarchy_.ark_der.begin(), hierarchy_.ark_der.end());
  ev.certificates = snp::serialize_cert_table(table);
  check_sev_snp_report(ev.raw, report_data);
  return ev;
}

}  // namespace a3s::power::tee
