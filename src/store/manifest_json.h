// Manifest files (manifests/<escaped name>.json): one JSON object per model,
//   {"name": "...", "digest": "sha256:<64 hex>", "size": <bytes>, "format": "gguf",
//    "architecture": "...", "quantization": "...", "source": "...", "created": "<RFC 3339 UTC>"}
// Unknown fields are ignored when reading (forward compatibility).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "store/store.h"

namespace a3s::power::store {

nlohmann::json manifest_to_json(const Manifest& m);

// Throws Error(codes::kInvalidModel) when a field is missing, has the wrong type, or the digest or
// name is malformed.
Manifest manifest_from_json(const nlohmann::json& j);

// True for "sha256:" followed by 64 lowercase hex characters.
bool is_valid_digest(const std::string& digest);

}  // namespace a3s::power::store
