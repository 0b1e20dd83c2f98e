// Read access to a Context's KV cache and a model's step batcher for tests of the engine (e.g. that Context::wipe() leaves every
// stored byte zero). Not for serving code.
#pragma once

#include "a3s/power/engine.h"
#include "engine/kv_cache.h"
#include "engine/step_batcher.h"

namespace a3s::power::engine {

// The KV cache of `ctx` (valid while ctx lives).
const KvCache& kv_cache_of(const Context& ctx);

// The KV blocks a snapshot holds (tests check what they hold and that they are wiped when freed).
const std::vector<KvBlockPool::Block>& snapshot_blocks(const KvSnapshot& s);

// The step batcher of a model loaded by this engine (tests pause it to compose steps).
StepBatcher& batcher_of(const Model& model);

}  // namespace a3s::power::engine
