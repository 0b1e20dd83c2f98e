// Canonical JSON (RFC 8785, JSON Canonicalization Scheme), the one implementation of the server and
// the verifier.
//
// Output: no whitespace; object members sorted by key compared as UTF-16 code units (RFC 8785 §3.2.3);
// strings serialised as ECMAScript JSON.stringify does (RFC 8785 §3.2.2.2): `"` and `\` escaped, the
// control characters U+0008, U+0009, U+000A, U+000C, U+000D as \b \t \n \f \r, the other characters
// below U+0020 as \u00xx (lowercase hex), everything else (including U+007F, U+2028, U+2029 and all
// non-ASCII text) written as UTF-8 unchanged; arrays in their order; `null`, `true`, `false`.
// Numbers (RFC 8785 §3.2.2.3) are IEEE 754 doubles written as ECMAScript Number.prototype.toString:
// an integer with |n| <= 2^53 - 1 as plain decimal digits ("0", "-7", "9007199254740991"); any other
// finite value with the shortest digits that round-trip, in decimal notation for 1e-6 <= |x| < 1e21
// ("0.5", "0.000001", "100000000000000000000"), else in exponent notation ("1e-7", "1.5e+21"); -0 as "0". An integer
// beyond 2^53 - 1 in magnitude is kept only when the double nearest to it is written with exactly its
// digits (9007199254740992, 9223372036854776000), and refused otherwise rather than rounded; so
// canonical output parsed and canonicalised again gives the same bytes.
//
// Two value sets:
//   JsonValues::kClaims  objects, strings and booleans only: what attestation claims hold, so their
//                        canonical form never depends on number formatting (the default).
//   JsonValues::kAll     every JSON value: receipts (token counts), the published configuration and a
//                        response's choices (arrays, null).
// Errors: throws a3s::power::Error(codes::kInvalidArgument) for a value outside the set, a string / key
// that is not valid UTF-8, an integer beyond 2^53 - 1 whose digits a double does not keep, or a non-finite
// number; the message names the JSON
// path (keys and array indexes), never a string value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace a3s::power {

enum class JsonValues { kClaims, kAll };

// The RFC 8785 canonical UTF-8 encoding of `value`.
std::string canonical_json(const nlohmann::json& value, JsonValues set = JsonValues::kClaims);

// Largest integer canonical_json writes exactly: 2^53 - 1 (ECMAScript Number.MAX_SAFE_INTEGER).
inline constexpr int64_t kMaxCanonicalInteger = (int64_t{1} << 53) - 1;

}  // namespace a3s::power
