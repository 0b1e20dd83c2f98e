// Canonical JSON (RFC 8785, JSON Canonicalization Scheme) for the restricted value set A3S Power signs
// over: objects, strings and booleans.
//
// Output: no whitespace; object members sorted by key compared as UTF-16 code units (RFC 8785 §3.2.3);
// strings serialised as ECMAScript JSON.stringify does (RFC 8785 §3.2.2.2): `"` and `\` escaped, the
// control characters U+0008, U+0009, U+000A, U+000C, U+000D as \b \t \n \f \r, the other characters
// below U+0020 as \u00xx (lowercase hex), everything else (including U+007F, U+2028, U+2029 and all
// non-ASCII text) written as UTF-8 unchanged.
//
// Numbers, null and arrays are rejected, so the canonical form never depends on number formatting
// (RFC 8785 §3.2.2.3). Errors: throws a3s::power::Error(codes::kInvalidArgument) for a value of another
// type or a string / key that is not valid UTF-8; the message names the JSON path (keys), never a
// string value.
//
// Shared by the server (attestation/claims.h hashes its claims into report_data) and the verifier (which
// recomputes that digest from the claims it receives), so both sides canonicalise with one
// implementation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace a3s::power {

// The RFC 8785 canonical UTF-8 encoding of `value` (an object, string or boolean).
std::string canonical_json(const nlohmann::json& value);

}  // namespace a3s::power
