// SHA-256 of a whole plaintext file, read in chunks (the `sign` and `hash` tools). For a model the
// server serves, the digest is computed while loading instead (model/integrity/integrity.h).
// Errors: Error(codes::kIo) when the file is not a regular file or cannot be read completely.
#pragma once

#include <string>

#include "crypto/sha256.h"

namespace a3s::power::weights {

crypto::Sha256Digest file_sha256(const std::string& path);

}  // namespace a3s::power::weights
