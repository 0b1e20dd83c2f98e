// The nonce of a live attestation: 32 bytes, fresh from OpenSSL's CSPRNG unless --nonce gives them.
#pragma once

#include <string>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify::cli {

// `hex` empty: RAND_bytes (throws Error "internal_error" if the generator fails). Otherwise exactly
// 64 hex digits (Error "invalid_argument" naming --nonce, not echoing it).
Nonce nonce_from(const std::string& hex);

}  // namespace a3s::power::verify::cli
