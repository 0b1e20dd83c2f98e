// Instruction-set selection: CPUID at first use, A3S_POWER_ISA override, force_isa for tests; and the
// panel kernels' read-ahead by CPU vendor (kernel_table.h, panel_read_ahead).
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(A3S_KERNELS_HAVE_AVX2)
#include <cpuid.h>
#endif

#include "a3s/power/error.h"
#include "base/printable.h"
#include "kernels/kernel_table.h"
#include "kernels/kernels.h"

namespace a3s::power::kernels {
namespace {

struct IsaEntry {
  Isa isa;
  const char* name;
  bool (*cpu_has)();              // null → always supported
  void (*install)(KernelTable&);  // fills the ISA's kernels into a null table; null for scalar
};

#if defined(A3S_KERNELS_HAVE_AVX2)
// AVX2 + FMA + F16C from CPUID, and the OS saving YMM state (XCR0 bits 1 and 2).
bool cpu_has_avx2() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
  const bool fma = (c >> 12) & 1u, osxsave = (c >> 27) & 1u, avx = (c >> 28) & 1u, f16c = (c >> 29) & 1u;
  if (!(fma && osxsave && avx && f16c)) return false;
  unsigned xcr0 = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  if ((xcr0 & 6u) != 6u) return false;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return (b >> 5) & 1u;
}
#endif

#if defined(A3S_KERNELS_HAVE_AVXVNNI)
// AVX2 (above) plus AVX-VNNI from CPUID leaf 7 subleaf 1 (EAX bit 4); its VEX instructions use the
// YMM state AVX2 already requires.
bool cpu_has_avxvnni() {
  if (!cpu_has_avx2()) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0 || a < 1) return false;  // a: highest subleaf
  if (__get_cpuid_count(7, 1, &a, &b, &c, &d) == 0) return false;
  return (a >> 4) & 1u;
}
#endif

#if defined(A3S_KERNELS_HAVE_AVX512)
// AVX2 (above) plus AVX-512 F, BW, VL and VNNI from CPUID leaf 7, and the OS saving the opmask and
// ZMM state (XCR0 bits 5, 6 and 7 besides the YMM bits).
bool cpu_has_avx512() {
  if (!cpu_has_avx2()) return false;
  unsigned xcr0 = 0, xcr0_high = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  if ((xcr0 & 0xE6u) != 0xE6u) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  const bool f = (b >> 16) & 1u, bw = (b >> 30) & 1u, vl = (b >> 31) & 1u, vnni = (c >> 11) & 1u;
  return f && bw && vl && vnni;
}
#endif

#if defined(A3S_KERNELS_HAVE_AVX2)
// The CPUID vendor string (leaf 0: EBX, EDX, ECX), 12 characters and a NUL; empty if leaf 0 fails.
std::array<char, 13> cpu_vendor() {
  std::array<char, 13> v{};
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return v;
  std::memcpy(v.data(), &b, 4);
  std::memcpy(v.data() + 4, &d, 4);
  std::memcpy(v.data() + 8, &c, 4);
  return v;
}
#endif

// Slowest to fastest. A new instruction set is one more row (and its source file).
constexpr std::array kIsas = {
    IsaEntry{Isa::Scalar, "scalar", nullptr, nullptr},
#if defined(A3S_KERNELS_HAVE_AVX2)
    IsaEntry{Isa::Avx2, "avx2", cpu_has_avx2, install_avx2},
#endif
#if defined(A3S_KERNELS_HAVE_AVXVNNI)
    IsaEntry{Isa::AvxVnni, "avxvnni", cpu_has_avxvnni, install_avxvnni},
#endif
#if defined(A3S_KERNELS_HAVE_AVX512)
    IsaEntry{Isa::Avx512, "avx512", cpu_has_avx512, install_avx512},
#endif
};

const IsaEntry* find_entry(Isa isa) {
  for (const auto& e : kIsas) {
    if (e.isa == isa) return &e;
  }
  return nullptr;
}

bool supported(const IsaEntry& e) {
  return e.cpu_has == nullptr || e.cpu_has();
}

// One immutable table per compiled-in ISA, built on first use. Each ISA's kernels lie over the
// table of the ISA before it (avx512 over avxvnni over avx2 over scalar), so an entry an ISA leaves null keeps
// the next slower path's kernel. Tables of unsupported ISAs are never installed (their code would
// fault) and never selected (force_isa refuses them).
const KernelTable& table_for(Isa isa) {
  static const auto tables = [] {
    std::array<KernelTable, kIsas.size()> out;
    for (size_t i = 0; i < kIsas.size(); ++i) {
      out[i] = i == 0 ? scalar_table() : out[i - 1];
      if (kIsas[i].install != nullptr && supported(kIsas[i])) {
        KernelTable isa_kernels;  // all null
        kIsas[i].install(isa_kernels);
        overlay(out[i], isa_kernels);
      }
    }
    return out;
  }();
  for (size_t i = 0; i < kIsas.size(); ++i) {
    if (kIsas[i].isa == isa) return tables[i];
  }
  return tables[0];
}

Isa initial_isa() {
  return isa_for_environment(std::getenv("A3S_POWER_ISA"));
}

struct Active {
  std::atomic<Isa> isa;
  std::atomic<const KernelTable*> table;
  Active() : isa(initial_isa()), table(&table_for(isa.load())) {}
};

Active& active() {
  static Active a;
  return a;
}

}  // namespace

PrefetchInto panel_read_ahead_for(const char* vendor) {
  return vendor != nullptr && std::strcmp(vendor, "GenuineIntel") == 0 ? PrefetchInto::kL2 : PrefetchInto::kL1;
}

PrefetchInto panel_read_ahead() {
#if defined(A3S_KERNELS_HAVE_AVX2)
  static const PrefetchInto into = panel_read_ahead_for(cpu_vendor().data());
  return into;
#else
  return PrefetchInto::kL1;
#endif
}

bool install_avx512_panel_for_testing(KernelTable& t, PrefetchInto into) {
#if defined(A3S_KERNELS_HAVE_AVX512)
  if (!cpu_has_avx512()) return false;
  install_avx512_panel(t, into);
  return true;
#else
  (void)t;
  (void)into;
  return false;
#endif
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Scalar:
      return "scalar";
    case Isa::Avx2:
      return "avx2";
    case Isa::AvxVnni:
      return "avxvnni";
    case Isa::Avx512:
      return "avx512";
  }
  return "unknown";
}

std::optional<Isa> parse_isa(std::string_view name) {
  if (name == "scalar") return Isa::Scalar;
  if (name == "avx2") return Isa::Avx2;
  if (name == "avxvnni") return Isa::AvxVnni;
  if (name == "avx512") return Isa::Avx512;
  return std::nullopt;
}

bool isa_supported(Isa isa) {
  const IsaEntry* e = find_entry(isa);
  return e != nullptr && supported(*e);
}

Isa best_isa() {
  Isa best = Isa::Scalar;
  for (const auto& e : kIsas) {
    if (supported(e)) best = e.isa;
  }
  return best;
}

Isa isa_for_environment(const char* value) {
  if (value != nullptr) {
    if (auto forced = parse_isa(value); forced && isa_supported(*forced)) return *forced;
  }
  return best_isa();
}

std::optional<std::string> isa_environment_warning(const char* value) {
  if (value == nullptr || *value == '\0' || std::string_view(value) == "auto") return std::nullopt;
  const auto forced = parse_isa(value);
  if (forced && isa_supported(*forced)) return std::nullopt;
  PrintableStyle style;
  style.max_bytes = 32;
  style.unprintable = Unprintable::kNonAscii;
  style.also_unprintable = "\"\\";
  const std::string shown = printable(value, style);
  const std::string quoted = "A3S_POWER_ISA=\"" + shown + "\"";
  const std::string fallback = std::string("; using ") + isa_name(best_isa());
  if (!forced) return quoted + " is not an instruction set (auto, scalar, avx2, avxvnni, avx512)" + fallback;
  return quoted + " is not supported by this CPU" + fallback;
}

Isa active_isa() {
  return active().isa.load(std::memory_order_relaxed);
}

void force_isa(Isa isa) {
  if (!isa_supported(isa)) {
    throw Error(codes::kInvalidArgument, std::string("instruction set not supported here: ") + isa_name(isa));
  }
  Active& a = active();
  a.table.store(&table_for(isa), std::memory_order_release);
  a.isa.store(isa, std::memory_order_relaxed);
}

const KernelTable& active_table() {
  return *active().table.load(std::memory_order_acquire);
}

}  // namespace a3s::power::kernels
