// --expected-hash: the SHA-256 of the model's plaintext GGUF, as "sha256:<64 hex>" (the form
// `a3s-power` prints and the server's claims carry in model.sha256).
#pragma once

#include <string_view>

#include "a3s/power/verify_attestation.h"

namespace a3s::power::verify::cli {

// "sha256:" followed by 64 hex digits (either case). Throws Error "invalid_argument" otherwise.
Sha256 parse_model_hash(std::string_view text);

}  // namespace a3s::power::verify::cli
