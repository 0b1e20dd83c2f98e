// Evidence through configfs-tsm (Linux 6.7+): one interface for SEV-SNP reports and TDX quotes.
//
// Source: Linux Documentation/ABI/testing/configfs-tsm. Per request:
//   1. mkdir <root>/sys/kernel/config/tsm/report/<entry>   (configfs creates the attributes below)
//   2. write `inblob` (the 64-byte report_data)
//   3. read `generation` (G1), `provider` ("sev_guest" | "tdx_guest"), `outblob` (the SNP
//      ATTESTATION_REPORT or the TDX quote) and, when present, `auxblob` (the SNP certificate table)
//   4. read `generation` again (G2): G2 != G1 means another writer changed the entry between our write
//      and our read (the outblob may be someone else's); the provider retries from step 2 up to
//      `max_attempts` times, then fails.
//   5. rmdir the entry (also on failure) when this provider created it.
// The outblob is then checked (evidence_check.h): it must parse and carry the requested report_data.
//
// Entries: by default a fresh name per request ("a3s-power-<pid>-<n>"), created and removed by the
// provider; an existing directory of that name is an error (another process owns it). With
// `use_existing_entry` the provider uses an entry the caller prepared (an operator-made entry, or a test's
// fake tree with the attribute files already in place, since a plain directory cannot create configfs
// attributes on mkdir) and leaves it in place. Attributes are opened without O_CREAT: a missing
// attribute is an error, except `auxblob`, which is optional.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "tee/evidence.h"

namespace a3s::power::tee {

struct ConfigfsTsmOptions {
  std::filesystem::path root = "/";  // the tree is <root>/sys/kernel/config/tsm/report
  std::string entry_name;            // empty → a fresh name per request
  bool use_existing_entry = false;   // see above
  int max_attempts = 3;              // attempts when `generation` changes (step 4)
};

class ConfigfsTsmProvider final : public EvidenceProvider {
 public:
  explicit ConfigfsTsmProvider(ConfigfsTsmOptions options);

  // <root>/sys/kernel/config/tsm/report is a directory.
  static bool available(const std::filesystem::path& root);
  static std::filesystem::path report_dir(const std::filesystem::path& root);

  std::string name() const override { return "configfs-tsm"; }
  // tee_type "sev-snp" (provider sev_guest; certificates = auxblob) or "tdx" (provider tdx_guest);
  // verifiable_remotely = true. Errors: Error(codes::kAttestationFailed) naming the attribute or step.
  Evidence get_evidence(const ReportData& report_data) override;

 private:
  std::string next_entry_name();

  ConfigfsTsmOptions options_;
  std::atomic<uint64_t> counter_{0};
};

}  // namespace a3s::power::tee
