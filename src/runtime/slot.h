// A generation slot: runs one request at a time and owns the sequence state (KV cache) of each model
// it has served, so a slot's KV cache is allocated once and reused across requests.
#pragma once

#include <map>
#include <memory>

#include "runtime/model_runtime.h"

namespace a3s::power::runtime {

class Slot {
 public:
  explicit Slot(int index) : index_(index) {}
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  int index() const { return index_; }

  // This slot's context for `model`, created on first use. Contexts of models that have since been
  // unloaded are released first.
  RuntimeContext& context_for(const std::shared_ptr<const ModelRuntime>& model);

  // Releases the contexts of models that are no longer loaded (no one else holds the runtime).
  void release_unloaded();
  size_t n_contexts() const { return contexts_.size(); }

 private:
  struct Entry {
    std::weak_ptr<const ModelRuntime> model;
    std::unique_ptr<RuntimeContext> context;
  };
  int index_;
  std::map<const ModelRuntime*, Entry> contexts_;
};

}  // namespace a3s::power::runtime
