// libFuzzer target for the config file parser (config/hcl_parser.h) and the schema that turns its body
// into the effective Config (config/schema.h apply_file, over the defaults, with an empty
// environment). Any text must either give a Config or be refused with Error (a non-empty
// "file:line:col: message"); a Config that is given must serialise to its effective JSON, and
// parsing the same text again gives the same effective JSON (the parser keeps no state). Any other
// exception, crash or sanitizer report is a bug. Seeds: tests/fuzz/seeds/config/; dictionary:
// tests/fuzz/config.dict.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "a3s/power/error.h"
#include "config/config.h"
#include "config/hcl_parser.h"
#include "config/schema.h"

namespace {

std::string effective(std::string_view text) {
  using namespace a3s::power::config;
  hcl::Body body = hcl::parse(text, "fuzz.hcl");
  Config cfg;
  apply_file(cfg, body, std::map<std::string, std::string>{});
  hcl::wipe(body);
  return cfg.effective_json().dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string once;
  try {
    once = effective(text);
  } catch (const a3s::power::Error& e) {
    if (e.what()[0] == '\0') __builtin_trap();
    return 0;
  }
  if (effective(text) != once) __builtin_trap();
  return 0;
}
