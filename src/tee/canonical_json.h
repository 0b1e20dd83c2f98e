// The TEE layer's name for the shared RFC 8785 canonicaliser (core/canonical_json.h): claims are
// canonicalised here and recomputed by the verifier with the same implementation.
#pragma once

#include "core/canonical_json.h"

namespace a3s::power::tee {

using a3s::power::canonical_json;

}  // namespace a3s::power::tee
