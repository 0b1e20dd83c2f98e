#include "a3s-power-verify/snp_guest_args.h"

#include "a3s/power/error.h"
#include "a3s-power-verify/non_empty_arg.h"

namespace a3s::power::verify::cli {

void add_snp_guest_options(CLI::App& cmd, SnpGuestArgs& a) {
  cmd.add_option("--vmpl", a.vmpl, "SEV-SNP: the report's VMPL must be N (0..3)")->check(non_empty());
  cmd.add_flag("--allow-migration-agent", a.allow_migration_agent,
               "SEV-SNP: accept a guest policy that allows a migration agent (MIGRATE_MA; refused by default)");
}

std::optional<uint32_t> parse_vmpl(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text.size() != 1 || text[0] < '0' || text[0] > '3')
    throw Error(codes::kInvalidArgument, "--vmpl must be 0, 1, 2 or 3");
  return static_cast<uint32_t>(text[0] - '0');
}

}  // namespace a3s::power::verify::cli
