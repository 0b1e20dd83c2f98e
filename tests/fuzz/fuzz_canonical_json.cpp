// libFuzzer target for canonical JSON (RFC 8785, base/canonical_json.h): any JSON text that parses
// must either canonicalise or be refused with a3s::power::Error, in both value sets; and canonical
// output is a fixed point — it parses, and canonicalising it again gives the same bytes. Any other
// exception escapes and is reported as a crash. Seeds: tests/fuzz/seeds/canonical_json/.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "a3s/power/error.h"
#include "base/canonical_json.h"

namespace {

void check(const nlohmann::json& value, a3s::power::JsonValues set) {
  std::string once;
  try {
    once = a3s::power::canonical_json(value, set);
  } catch (const a3s::power::Error& e) {
    if (e.what()[0] == '\0') __builtin_trap();
    return;
  }
  const nlohmann::json again = nlohmann::json::parse(once, nullptr, /*allow_exceptions=*/false);
  if (again.is_discarded()) __builtin_trap();                        // canonical output is JSON
  if (a3s::power::canonical_json(again, set) != once) __builtin_trap();  // and a fixed point
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json value =
      nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return 0;
  check(value, a3s::power::JsonValues::kAll);
  check(value, a3s::power::JsonValues::kClaims);
  return 0;
}
