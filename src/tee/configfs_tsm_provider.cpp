#include "tee/configfs_tsm_provider.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "a3s/power/error.h"
#include "tee/evidence_check.h"
#include "tee/sysfs_attribute.h"
#include "a3s/power/error.h"

namespace a3s::power::tee {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error(codes::kAttestationFailed, "configfs-tsm: " + what);
}

// Attribute text without trailing newline / NULs ("sev_guest\n" → "sev_guest").
std::string text_of(const std::vector<uint8_t>& bytes) {
  std::string s(bytes.begin(), bytes.end());
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

uint64_t generation_of(const std::filesystem::path& entry) {
  const std::string s = text_of(*read_attribute(entry / "generation"));
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos)
    fail("generation is not a decimal number");
  return std::stoull(s);
}

// Removes the entry on scope exit when this provider created it.
class EntryGuard {
 public:
  EntryGuard(std::filesystem::path dir, bool owned) : dir_(std::move(dir)), owned_(owned) {}
  ~EntryGuard() {
    if (owned_) ::rmdir(dir_.c_str());  // configfs removes the attributes with the directory
  }
  EntryGuard(const EntryGuard&) = delete;
  EntryGuard& operator=(const EntryGuard&) = delete;

 private:
  std::filesystem::path dir_;
  bool owned_;
};

}  // namespace

ConfigfsTsmProvider::ConfigfsTsmProvider(ConfigfsTsmOptions options) : options_(std::move(options)) {
  if (options_.max_attempts < 1) options_.max_attempts = 1;
  if (options_.entry_name.find('/') != std::string::npos || options_.entry_name == "." ||
      options_.entry_name == "..")
    throw Error(codes::kInvalidArgument, "configfs-tsm: entry name must be a single path component");
}

std::filesystem::path ConfigfsTsmProvider::report_dir(const std::filesystem::path& root) {
  return root / "sys/kernel/config/tsm/report";
}

bool ConfigfsTsmProvider::available(const std::filesystem::path& root) {
  std::error_code ec;
  return std::filesystem::is_directory(report_dir(root), ec);
}

std::string ConfigfsTsmProvider::next_entry_name() {
  if (!options_.entry_name.empty()) return options_.entry_name;
  return "a3s-power-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++);
}

Evidence ConfigfsTsmProvider::get_evidence(const ReportData& report_data) {
  const std::filesystem::path entry = report_dir(options_.root) / next_entry_name();
  bool created = false;
  if (::mkdir(entry.c_str(), 0700) == 0) {
    created = true;
  } else {
    const int err = errno;
    if (err != EEXIST || !options_.use_existing_entry)
      fail("mkdir " + entry.filename().string() + ": " + std::strerror(err));
    std::error_code ec;
    if (!std::filesystem::is_directory(entry, ec))
      fail("entry " + entry.filename().string() + " is not a directory");
  }
  EntryGuard guard(entry, created);

  for (int attempt = 0; attempt < options_.max_attempts; ++attempt) {
    write_attribute(entry / "inblob", report_data);
    const uint64_t before = generation_of(entry);
    const std::string provider = text_of(*read_attribute(entry / "provider"));
    std::vector<uint8_t> outblob = *read_attribute(entry / "outblob");
    std::optional<std::vector<uint8_t>> auxblob = read_attribute(entry / "auxblob", /*optional=*/true);
    if (generation_of(entry) != before) continue;  // another writer raced us: retry

    Evidence ev;
    ev.source = name();
    ev.verifiable_remotely = true;
    if (provider == "sev_guest") {
      check_sev_snp_report(outblob, report_data);
      ev.tee_type = tee_types::kSevSnp;
      ev.format = evidence_formats::kSevSnpReport;
      if (auxblob) ev.certificates = std::move(*auxblob);
    } else if (provider == "tdx_guest") {
      check_tdx_quote(outblob, report_data);
      ev.tee_type = tee_types::kTdx;
      ev.format = evidence_formats::kTdxQuote;
    } else {
      fail("unknown provider (expected sev_guest or tdx_guest)");
    }
    ev.raw = std::move(outblob);
    return ev;
  }
  fail("generation changed during every attempt (concurrent writer to the report entry)");
}

}  // namespace a3s::power::tee
