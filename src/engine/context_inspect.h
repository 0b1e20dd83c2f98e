// Read access to a Context's KV cache for tests of the engine (e.g. that Context::wipe() leaves every
// stored byte zero). Not for serving code.
#pragma once

#include "a3s/power/engine.h"
#include "engine/kv_cache.h"

namespace a3s::power::engine {

// The KV cache of `ctx` (valid while ctx lives).
const KvCache& kv_cache_of(const Context& ctx);

}  // namespace a3s::power::engine
