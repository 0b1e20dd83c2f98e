// --min-tcb: the minimum SEV-SNP TCB_VERSION, as "bl=N,tee=N,snp=N,ucode=N[,fmc=N]".
#pragma once

#include <string_view>

#include "a3s/power/verify.h"

namespace a3s::power::verify::cli {

// Components are decimal SPLs 0–255, in any order; bl, tee, snp and ucode are required, fmc (Turin)
// defaults to 0. Throws a3s::power::Error "invalid_argument" otherwise.
SnpTcb parse_min_tcb(std::string_view text);

}  // namespace a3s::power::verify::cli
