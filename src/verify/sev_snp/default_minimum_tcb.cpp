#include "verify/sev_snp/default_minimum_tcb.h"

namespace a3s::power::verify::sev_snp {

std::optional<TcbVersion> default_minimum_tcb(AmdProduct product) {
  switch (product) {
    case AmdProduct::kMilan:
      return TcbVersion{.fmc = 0, .boot_loader = 4, .tee = 0, .snp = 27, .microcode = 222};
    case AmdProduct::kGenoa:
    case AmdProduct::kTurin:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace a3s::power::verify::sev_snp
