#include "a3s-power-verify/min_tcb_arg.h"

#include <string>

#include "a3s/power/error.h"

namespace a3s::power::verify::cli {
namespace {

[[noreturn]] void bad() {
  throw Error(codes::kInvalidArgument, "--min-tcb must be bl=N,tee=N,snp=N,ucode=N[,fmc=N] with N in 0..255");
}

uint8_t spl(std::string_view v) {
  if (v.empty() || v.size() > 3) bad();
  int n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') bad();
    n = n * 10 + (c - '0');
  }
  if (n > 255) bad();
  return uint8_t(n);
}

}  // namespace

SnpTcb parse_min_tcb(std::string_view text) {
  SnpTcb tcb;
  unsigned seen = 0;  // bit per required component
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) bad();
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) bad();
    const std::string_view key = item.substr(0, eq);
    const uint8_t value = spl(item.substr(eq + 1));
    if (key == "bl")
      tcb.boot_loader = value, seen |= 1;
    else if (key == "tee")
      tcb.tee = value, seen |= 2;
    else if (key == "snp")
      tcb.snp = value, seen |= 4;
    else if (key == "ucode")
      tcb.microcode = value, seen |= 8;
    else if (key == "fmc")
      tcb.fmc = value;
    else
      bad();
  }
  if (seen != 15) bad();
  return tcb;
}

}  // namespace a3s::power::verify::cli
