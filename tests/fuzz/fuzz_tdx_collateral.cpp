// libFuzzer target for the TDX collateral parsers (verify/tdx): the input is a signed collateral
// document as Intel PCS serves it ({"tcbInfo": {...}, "signature": "..."} or {"enclaveIdentity": ...}).
// raw_json_member finds the body without reading out of bounds, and parse_tdx_tcb_info /
// parse_qe_identity turn the body (and, to reach their field checks from any JSON, the whole input)
// into TdxTcbInfo / QeIdentity or refuse it with std::runtime_error naming the field. Any other
// exception (a JSON library exception escaping, say), crash or sanitizer report is a bug.
// Seeds: tests/fuzz/seeds/tdx_collateral/; dictionary: tests/fuzz/tdx_collateral.dict.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "verify/tdx/qe_identity.h"
#include "verify/tdx/signed_json.h"
#include "verify/tdx/tcb_info.h"

namespace {

using namespace a3s::power::verify::tdx;

void tcb_info(std::string_view text) {
  try {
    const TdxTcbInfo info = parse_tdx_tcb_info(text);
    volatile std::size_t sink = info.levels.size() + info.tdx_module_identities.size();
    (void)sink;
  } catch (const std::runtime_error& e) {
    if (e.what()[0] == '\0') __builtin_trap();
  }
}

void qe_identity(std::string_view text) {
  try {
    const QeIdentity identity = parse_qe_identity(text);
    volatile std::size_t sink = identity.levels.size();
    (void)sink;
  } catch (const std::runtime_error& e) {
    if (e.what()[0] == '\0') __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view doc(reinterpret_cast<const char*>(data), size);
  if (const auto body = raw_json_member(doc, "tcbInfo")) {
    if (body->data() < doc.data() || body->data() + body->size() > doc.data() + doc.size()) __builtin_trap();
    tcb_info(*body);
  } else {
    tcb_info(doc);
  }
  if (const auto body = raw_json_member(doc, "enclaveIdentity")) {
    if (body->data() < doc.data() || body->data() + body->size() > doc.data() + doc.size()) __builtin_trap();
    qe_identity(*body);
  } else {
    qe_identity(doc);
  }
  return 0;
}
