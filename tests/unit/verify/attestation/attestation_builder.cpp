#include "attestation_builder.h"

#include "base/canonical_json.h"
#include "base/hex.h"
#include "crypto/base64.h"

#include <cstring>

#include "attestation/sev_snp/cert_table.h"

namespace a3s::power::verify_attestation_testing {

namespace snp = verify::sev_snp;

crypto::Sha256Digest model_digest() {
  crypto::Sha256Digest d{};
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(0xA0 + i);
  return d;
}

std::string model_digest_arg() {
  return "sha256:" + to_hex(model_digest());
}

nlohmann::json test_config() {
  return {{"host", "127.0.0.1"},          {"port", 11434},      {"queue_timeout_seconds", 2.5},
          {"models", nlohmann::json::array({{{"name", kModel}, {"ref", "/m.gguf"}}})},
          {"model_signing_key", nullptr}, {"tee_mode", true}};
}

tee::Claims make_claims(const tee::Nonce& nonce, const std::string& model) {
  tee::Claims c;
  c.nonce = nonce;
  c.model_name = model;
  c.model_sha256 = model_digest();
  c.signature = tee::SignatureStatus::kAbsent;
  c.runtime_version = "0.1.0";
  const std::string config = canonical_json(test_config(), JsonValues::kAll);
  c.config_sha256 = crypto::sha256({reinterpret_cast<const uint8_t*>(config.data()), config.size()});
  c.tee_policy = TeePolicy::kDevelopment;
  return c;
}

tee::Nonce test_nonce(uint8_t seed) {
  tee::Nonce n{};
  for (size_t i = 0; i < n.size(); ++i) n[i] = static_cast<uint8_t>(seed * 31 + i * 7 + 1);
  return n;
}

nlohmann::json response_for(const tee::Evidence& ev, const tee::Claims& claims) {
  const tee::ReportData rd = claims.report_data();
  const snp::Report parsed = snp::parse_report(ev.raw);
  nlohmann::json j;
  j["tee_type"] = ev.tee_type;
  j["policy"] = to_string(claims.tee_policy);
  j["evidence_format"] = ev.format;
  j["report"] = crypto::base64_encode(ev.raw);
  j["report_data"] = to_hex(rd);
  j["measurement"] = to_hex(parsed.measurement);
  j["claims"] = claims.to_json();
  j["claims_sha256"] = to_hex(claims.digest());
  j["certificates"] =
      ev.certificates.empty() ? nlohmann::json(nullptr) : nlohmann::json(crypto::base64_encode(ev.certificates));
  j["verifiable"] = ev.verifiable_remotely;
  j["config"] = test_config();
  j["generated_at"] = "2026-11-30T01:02:03Z";
  return j;
}

nlohmann::json simulated_response(tee::SimulatedProvider& provider, const tee::Claims& claims) {
  return response_for(provider.get_evidence(claims.report_data()), claims);
}

tee::Evidence evidence_under(const snp::LocalKeyHierarchy& hierarchy, const snp::ChipId& chip_id,
                             const tee::ReportData& report_data) {
  snp::Report r;
  r.version = 5;
  r.policy = snp::policy_bits::kReservedMustBeOne | snp::policy_bits::kSmt;
  r.signing_key = static_cast<uint8_t>(snp::SigningKey::kVcek);
  r.cpuid_fam_id = 0x19;
  r.cpuid_mod_id = 0x01;
  const uint64_t tcb = snp::encode_tcb(snp::LeafSpec{}.tcb, snp::TcbLayout::kMilanGenoa);
  r.current_tcb = r.reported_tcb = r.committed_tcb = r.launch_tcb = tcb;
  r.chip_id = chip_id;
  r.measurement = tee::SimulatedProvider::measurement();
  std::copy(report_data.begin(), report_data.end(), r.report_data.begin());
  tee::Evidence ev;
  ev.tee_type = tee::tee_types::kSimulated;
  ev.format = tee::evidence_formats::kSevSnpReport;
  ev.source = "test";
  ev.simulated = true;
  ev.raw = hierarchy.sign(r);
  snp::CertTable table;
  table.vcek.assign(hierarchy.vcek_der.begin(), hierarchy.vcek_der.end());
  table.ask.assign(hierarchy.ask_der.begin(), hierarchy.ask_der.end());
  table.ark.assign(hierarchy.ark_der.begin(), hierarchy.ark_der.end());
  ev.certificates = snp::serialize_cert_table(table);
  return ev;
}

}  // namespace a3s::power::verify_attestation_testing
