// The minimum SEV-SNP TCB the verifier requires by default, per product: a dated table shipped with
// the verifier (docs/verify.md, "Default minimum TCB"), applied when the client gives no minimum of its
// own (--min-tcb).
//
// Components are security patch levels (SPLs, 0–255) of TCB_VERSION (SEV-SNP ABI spec 56860,
// TCB_VERSION structure; see tcb_version.h) and are compared one by one with REPORTED_TCB.
//
// Table of 2026-12-02. The values are conservative in the fail-closed sense: an entry is only shipped
// where its value was checked against real, AMD-endorsed evidence, and it is then that evidence's
// REPORTED_TCB (firmware AMD has endorsed and that is in production), which is at or above the fixes of
// AMD's SEV-SNP security bulletins up to that date for the platform it came from:
//   Milan  bl=4 tee=0 snp=27 ucode=222  REPORTED_TCB of a Google Cloud Milan report (the VCEK AMD KDS
//                                       issued for it is valid from 2025-12-05)
//   Genoa  no entry                     no verified value at the table's date
//   Turin  no entry                     no verified value at the table's date
// A product without an entry has no default: its evidence is refused (minimum_tcb_unknown) unless the
// client gives --min-tcb (or turns the TCB comparison off with --no-tcb-check).
#pragma once

#include <optional>

#include "attestation/sev_snp/product.h"
#include "attestation/sev_snp/tcb_version.h"

namespace a3s::power::verify::sev_snp {

// The date of the table above (ISO 8601), shown with every default minimum applied.
inline constexpr const char* kDefaultMinimumTcbDate = "2026-12-02";

// The table entry for `product`; std::nullopt when the table has none.
std::optional<TcbVersion> default_minimum_tcb(AmdProduct product);

}  // namespace a3s::power::verify::sev_snp
