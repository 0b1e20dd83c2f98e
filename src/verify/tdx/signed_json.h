// Intel's signed JSON collateral: {"<body name>": {...}, "signature": "<hex r||s>"}.
//
// Source: Intel PCS API (TCB Info v3 "tcbInfo", Enclave/QE Identity v2 "enclaveIdentity"): the
// signature is ECDSA P-256 / SHA-256 over the exact bytes of the body object's text as it appears in
// the document (no re-serialisation), hex-encoded r||s (128 hex digits).
#pragma once

#include <openssl/evp.h>

#include <optional>
#include <string>
#include <string_view>

namespace a3s::power::verify::tdx {

// The raw text of the value of top-level member `key` of the JSON object `document` (from its first
// to its last byte), or nullopt when `document` is not an object or has no such member or has it twice.
// Escapes in member names are compared literally. Never reads out of bounds on malformed input.
std::optional<std::string_view> raw_json_member(std::string_view document, std::string_view key);

// Checks `document`'s "signature" (hex r||s) over the raw text of member `body_key` with `key`
// (P-256). Returns the body text on success; throws std::runtime_error saying what is wrong
// (member missing or duplicated, signature not 128 hex digits, signature does not verify).
std::string_view verified_json_body(std::string_view document, std::string_view body_key, EVP_PKEY* key);

}  // namespace a3s::power::verify::tdx
