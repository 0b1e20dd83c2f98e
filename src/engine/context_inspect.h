// Read access to a Context's KV cache and a model's step batcher for tests of the engine (e.g. that Context::wipe() leaves every
// stored byte zero). Not for serving code.
#pragma once

#include "a3s/power/engine.h"
#include "engine/kv_cache.h"
#include "engine/step_batcher.h"

namespace a3s::power::engine {

// The KV cache of `ctx` (valid while ctx lives).
const KvCache& kv_cache_of(const Context& ctx);

// The storage of a snapshot's layer il (tests check it holds the copied rows, and zeros once wiped).
const KvBuffer& snapshot_k(const KvSnapshot& s, int il);
const KvBuffer& snapshot_v(const KvSnapshot& s, int il);
// Wipes a snapshot's storage in place, as its destructor does before freeing it (tests read the
// wiped buffers back).
void wipe_snapshot_for_testing(const KvSnapshot& s);

// The step batcher of a model loaded by this engine (tests pause it to compose steps).
StepBatcher& batcher_of(const Model& model);

}  // namespace a3s::power::engine
