// A3S Power evidence verification: the public API a client includes to check attestation evidence
// without linking the server (library a3s_verify, OpenSSL 3 only at run time).
//
//   std::vector<uint8_t> bytes = ...;                       // a raw SEV-SNP report or TDX quote
//   a3s::power::verify::EvidenceOptions opt;
//   opt.vcek = read("vcek.pem");                            // SEV-SNP: the certificate that signed it
//   opt.expected_measurements.push_back(golden);            // any of
//   auto r = a3s::power::verify::verify_evidence(bytes, opt);
//   if (!r.accepted) std::cerr << r.failed_step << ": " << r.message << "\n";
//
// The evidence type is detected from the bytes (detect_tee_type). Verification is a fixed sequence
// of steps; the first failure stops it and is named in Report::failed_step by a stable string (the
// step names of src/attestation/verify_result.h: malformed_evidence, signature_invalid, chain_invalid,
// collateral_missing, measurement_mismatch, report_data_mismatch, ...). docs/verify.md lists them per
// TEE.
//
// Formats (all integers little-endian):
//   SEV-SNP: AMD "SEV Secure Nested Paging Firmware ABI Specification" (56860), ATTESTATION_REPORT
//            (1184 bytes, VERSION 2–5; signature ECDSA P-384/SHA-384 over bytes 0x000–0x29F); VCEK
//            extensions and the ARK → ASK → VCEK chain: AMD 57230.
//   TDX:     Intel "TDX DCAP Quoting Library API", quote v4 / v5 (Quote Header: version u16 at 0,
//            attestation key type u16 at 2, TEE type u32 at 4 = 0x81); PCK chain: Intel "SGX PCK
//            Certificate and CRL Profile"; TCB Info v3 / QE Identity v2: Intel PCS API.
//
// Fail closed: anything that cannot be checked is a rejection, unless the caller turns a check off
// explicitly (no_tcb_check), and then Report::skipped names it. TDX: the quoting enclave's identity is
// always checked, against the QE Identity collateral or, without collateral, against Intel's TD QE
// (qe_identity_mismatch); no_tcb_check skips only the TCB status.
#pragma once

#include <array>
#include <cstdint>
#include <ctime>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::verify {

enum class TeeType { kUnknown, kSevSnp, kTdx };

// "sev-snp", "tdx", "unknown".
std::string_view to_string(TeeType tee);

// The evidence type, from the bytes alone:
//   kSevSnp: exactly 1184 bytes and VERSION (u32 at offset 0) in 2..5;
//   kTdx:    quote version (u16 at offset 0) 4 or 5 and TEE type (u32 at offset 4) 0x81;
//   kUnknown otherwise (verify_evidence then rejects with malformed_evidence).
TeeType detect_tee_type(std::span<const uint8_t> evidence);

// SEV-SNP TCB_VERSION components (security patch levels, 0–255). fmc is compared on Turin only.
struct SnpTcb {
  uint8_t fmc = 0, boot_loader = 0, tee = 0, snp = 0, microcode = 0;
};

using Measurement = std::array<uint8_t, 48>;  // SNP MEASUREMENT / TDX MRTD (SHA-384 sized)
using ReportData = std::array<uint8_t, 64>;   // SNP REPORT_DATA / TDX REPORTDATA

// TDX collateral in memory, the same content as the files of EvidenceOptions::collateral_dir (what
// Intel PCS serves: TCB Info and QE Identity bodies byte for byte, the TCB signing chain from the
// TCB-Info-Issuer-Chain header, the CRLs as DER).
struct TdxCollateralData {
  std::string tcb_info_json;        // tcbInfo.json (required)
  std::string qe_identity_json;     // qeIdentity.json (required)
  std::string tcb_sign_chain_pem;   // tcbSignChain.pem: TCB Signing certificate, then the root CA
  std::string root_ca_crl_der;      // rootCaCrl.der ("" = none)
  std::string pck_ca_crl_der;       // intermediateCaCrl.der: CRL of the PCK Platform/Processor CA ("" = none)
};

// TDX-only policy (Intel TDX module ABI, TDREPORT / TD quote body fields; hex in the quote's byte
// order). EvidenceOptions::tdx for offline verification, AttestationPolicy::tdx for the live mode.
struct TdxPolicy {
  // RTMR0..RTMR3 (index = register): each must equal one of its list; an empty list is not checked.
  // RTMR0 holds the TD's firmware configuration, RTMR1 its kernel, RTMR2 the kernel command line and
  // initrd, RTMR3 what the guest extends at run time (e.g. the server binary).
  std::array<std::vector<Measurement>, 4> expected_rtmr;
  std::optional<Measurement> expected_mr_config_id;  // MRCONFIGID must equal this (unset: not checked)
  std::optional<Measurement> expected_mr_owner;      // MROWNER must equal this (unset: not checked)
  // Advisory policy, applied to the TCB levels TCB Info and QE Identity match (so not with
  // no_tcb_check): refuse (advisory_rejected) when a matching level lists one of these advisory IDs
  // ("INTEL-SA-00615", compared ignoring case) ...
  std::vector<std::string> rejected_advisory_ids;
  // ... or, when true, when any matching status is SWHardeningNeeded, ConfigurationNeeded or
  // ConfigurationAndSWHardeningNeeded.
  bool reject_advisory_statuses = false;

  // True when nothing above is set (the policy then does not apply any TDX-only check).
  bool empty() const {
    for (const auto& list : expected_rtmr)
      if (!list.empty()) return false;
    return !expected_mr_config_id && !expected_mr_owner && rejected_advisory_ids.empty() &&
           !reject_advisory_statuses;
  }
};

// The TD's measurement registers as the quote carries them (lowercase hex, 96 digits each, quote
// byte order). Trust them only when the report is accepted.
struct TdxMeasurements {
  std::string mr_td;
  std::array<std::string, 4> rtmr;
  std::string mr_config_id;
  std::string mr_owner;
  std::string mr_owner_config;
};

// What to verify with and what to accept. Certificates and roots are file contents (PEM, or DER
// where noted), not paths; the CLI reads the files.
struct EvidenceOptions {
  // SEV-SNP: the VCEK (or VLEK) certificate, PEM or DER. Empty: certificate_missing. Must be empty for
  // TDX (invalid_argument).
  std::string vcek;
  // SEV-SNP: ASK (or ASVK), optionally followed by the ARK, PEM or DER; empty: the pinned ASK (ASVK for
  // a VLEK-signed report) of the report's product (Milan, Genoa or Turin).
  // TDX: the PCK certificate followed by its CA chain (PEM); empty: the quote's certification data
  // (type 5).
  std::string cert_chain;
  // SEV-SNP: AMD's CRL for the report's product (KDS /vcek/v1/{product}/crl), DER or PEM. Empty: ASK /
  // VCEK revocation is not checked and Report::skipped lists "crl". Given: it must be issued and signed
  // by the chain's ARK (else collateral_invalid), not past its nextUpdate at `at` (collateral_expired),
  // and list neither the ASK nor the VCEK (certificate_revoked). Must be empty for TDX.
  std::string snp_crl;
  // TDX: directory with tcbInfo.json, qeIdentity.json, tcbSignChain.pem and optionally
  // rootCaCrl.der / intermediateCaCrl.der. Empty: the TCB step fails with collateral_missing unless
  // no_tcb_check. Must be empty for SEV-SNP (invalid_argument): its TCB is endorsed by the VCEK.
  std::string collateral_dir;
  // TDX: the same collateral already in memory (e.g. fetched from Intel PCS); the verification is the
  // one of collateral_dir. Giving both, or giving it for SEV-SNP, is invalid_argument.
  std::optional<TdxCollateralData> tdx_collateral;
  // Root to trust instead of the pinned one (PEM): the ARK for SEV-SNP (instead of the pinned ARK of the
  // report's product; the report's CPUID and the VCEK's productName must still agree), the Intel SGX
  // Root CA for TDX.
  std::string root;
  // Time for every validity check (certificates, CRLs, collateral), Unix seconds (UTC). Unset: now.
  std::optional<std::time_t> at;
  // Policy: the measurement must equal one of these (empty: not checked).
  std::vector<Measurement> expected_measurements;
  // Policy: all 64 bytes of report_data must equal this (unset: not checked).
  std::optional<ReportData> expected_report_data;
  // Verify signatures and certificate chains only. TDX: the TCB Info / QE Identity step is skipped
  // (and the CRLs too when no collateral is given). SEV-SNP: the minimum TCB is not compared; the
  // VCEK ↔ REPORTED_TCB binding is part of the signature check and always runs. Report::tcb_status is
  // then "not_checked" and Report::skipped lists "tcb".
  bool no_tcb_check = false;
  // Accept evidence from the server's simulated TEE. SEV-SNP evidence is simulated when `root` or a
  // certificate of `cert_chain` is the simulated hierarchy's self-signed ARK (O=kSimulatedOrganization,
  // a3s/power/verify_attestation.h): Report::simulated is then set, and evidence that otherwise verifies
  // is rejected with simulated_evidence unless this is set.
  bool allow_simulated = false;
  // SEV-SNP: REPORTED_TCB must be at least this, component by component. Unset: the default minimum of
  // the report's product, from the dated table shipped with the verifier (docs/verify.md "Default
  // minimum TCB"); a product without an entry is rejected with minimum_tcb_unknown. Not compared with
  // no_tcb_check.
  std::optional<SnpTcb> snp_minimum_tcb;
  // SEV-SNP: compare with the default table when snp_minimum_tcb is unset. Turned off only for
  // simulated evidence (live mode), whose TCB is no firmware's.
  bool snp_default_minimum_tcb = true;
  // SEV-SNP: the report's VMPL (virtual machine privilege level, 0..3; 0 is the most privileged) must
  // equal this, else vmpl_mismatch. Unset: not compared (Report::vmpl shows it, Report::warnings
  // warns when it is above 0). A value above 3 is invalid_argument.
  std::optional<uint32_t> snp_vmpl;
  // SEV-SNP: accept a guest policy with MIGRATE_MA (bit 18) set, i.e. a migration agent that can read
  // and move the guest's memory. Default: refused with migration_agent_allowed.
  bool snp_allow_migration_agent = false;
  // TDX: platform and QE TCB statuses accepted. Empty: {"UpToDate", "SWHardeningNeeded"}.
  std::vector<std::string> tdx_accepted_tcb_statuses;
  // TDX: RTMR / MRCONFIGID / MROWNER policy and advisory policy. Must be empty for SEV-SNP
  // (invalid_argument).
  TdxPolicy tdx;
};

struct Report {
  bool accepted = false;
  TeeType tee_type = TeeType::kUnknown;
  std::string failed_step;  // empty when accepted
  std::string message;      // one line; empty when accepted
  // Lowercase hex of the evidence fields, in the evidence's byte order; empty when it did not parse.
  std::string measurement;  // 96 hex digits: SNP MEASUREMENT / TDX MRTD
  std::string report_data;  // 128 hex digits
  // TDX: the platform TCB status from TCB Info ("UpToDate", "OutOfDate", ...), "not_checked" with
  // no_tcb_check, "unknown" when verification stopped before the TCB step.
  // SEV-SNP: "endorsed" (the VCEK is issued for REPORTED_TCB; no minimum compared), "meets_minimum"
  // (and REPORTED_TCB ≥ the minimum, given or default), "out_of_date" (below it), "not_checked" with
  // no_tcb_check, "unknown" when verification stopped before the TCB comparison.
  std::string tcb_status;
  // TDX: every measurement register of the quote; unset for SEV-SNP and when the quote did not parse.
  std::optional<TdxMeasurements> tdx;
  // TDX: advisoryIDs of the TCB levels TCB Info / QE Identity matched (platform, TDX module, QE; no
  // duplicates). Empty with no_tcb_check, before the TCB step, or when the levels list none.
  std::vector<std::string> advisory_ids;
  // SEV-SNP only (empty / unset for TDX):
  std::optional<uint32_t> vmpl;  // the report's VMPL, once it parsed
  std::string product;           // "Milan", "Genoa", "Turin"; empty when not known
  // The minimum TCB compared with REPORTED_TCB ("bl=4 tee=0 snp=27 ucode=222", with "fmc=N " first on
  // Turin; empty when none was compared) and its source: "default" (the table of minimum_tcb_date),
  // "given" (snp_minimum_tcb), "none".
  std::string minimum_tcb;
  std::string minimum_tcb_source;
  std::string minimum_tcb_date;  // the default table's date (ISO 8601) when the source is "default"
  // One line each: what a client should know about evidence that was accepted or not (a VMPL above 0,
  // a migration agent allowed with snp_allow_migration_agent).
  std::vector<std::string> warnings;
  // SEV-SNP: the chain given is the simulated hierarchy's (EvidenceOptions::allow_simulated): no hardware
  // attests this evidence, whatever verified.
  bool simulated = false;
  // Checks that were not made, by name: "tcb" (no_tcb_check), "crl" (TDX without collateral: the PCK
  // chain's CRLs were not applied; SEV-SNP: no snp_crl was given, so ASK/VCEK revocation was not checked).
  std::vector<std::string> skipped;
};

// Verifies `evidence` (the whole file: a raw SEV-SNP report or a TDX quote). Evidence that does not
// parse is a rejection (malformed_evidence / unsupported_version), never an exception.
// Throws a3s::power::Error (include a3s/power/error.h) for bad options only: "invalid_argument" (an
// option that does not apply to the detected evidence type), "io_error" (collateral_dir unreadable or
// a required collateral file missing).
Report verify_evidence(std::span<const uint8_t> evidence, const EvidenceOptions& options);

}  // namespace a3s::power::verify
