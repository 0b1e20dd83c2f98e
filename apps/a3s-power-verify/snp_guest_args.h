// SEV-SNP guest policy flags shared by `report` and the live mode:
//   --vmpl N                   the report's VMPL must be N (0..3; anything else is a usage error)
//   --allow-migration-agent    accept a GUEST_POLICY with MIGRATE_MA (bit 18) set (refused by default:
//                              a migration agent can read and move the guest's memory)
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace a3s::power::verify::cli {

struct SnpGuestArgs {
  std::string vmpl;  // --vmpl N ("" = not given)
  bool allow_migration_agent = false;
};

void add_snp_guest_options(CLI::App& cmd, SnpGuestArgs& args);

// "0", "1", "2" or "3" → the VMPL; "" → std::nullopt. Throws a3s::power::Error "invalid_argument"
// for anything else.
std::optional<uint32_t> parse_vmpl(std::string_view text);

}  // namespace a3s::power::verify::cli
