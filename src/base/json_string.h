// JSON string literals as both ECMAScript's JSON.stringify and Python's json.dumps(ensure_ascii=False)
// write them: the one escaping behind canonical JSON (base/canonical_json.h) and the chat templates'
// `tojson` (chat/py_json.h).
#pragma once

#include <string>
#include <string_view>

namespace a3s::power {

// Appends `s` to `out` between double quotes. `"` and `\` are escaped, U+0008, U+0009, U+000A, U+000C
// and U+000D are written \b \t \n \f \r, the other bytes below 0x20 \u00xx (lowercase hex); every
// other byte (U+007F and all of UTF-8 above ASCII) is copied unchanged. Nothing is validated: a caller
// that needs valid UTF-8 checks it first.
void append_json_string(std::string& out, std::string_view s);

}  // namespace a3s::power
