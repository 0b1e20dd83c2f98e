#include "runtime/slot.h"

namespace a3s::power::runtime {

RuntimeContext& Slot::context_for(const std::shared_ptr<const ModelRuntime>& model) {
  release_unloaded();
  auto it = contexts_.find(model.get());
  if (it == contexts_.end()) {
    it = contexts_.emplace(model.get(), Entry{model, model->new_context()}).first;
  }
  return *it->second.context;
}

void Slot::release_unloaded() {
  for (auto it = contexts_.begin(); it != contexts_.end();) {
    // The runtime is gone once the registry dropped it and no request holds it; a new runtime may
    // reuse the same address, so an expired entry is always removed before a lookup.
    if (it->second.model.expired()) {
      it = contexts_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace a3s::power::runtime
