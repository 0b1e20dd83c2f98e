// The served models: those named in the configuration (by path or store name), models pulled through
// the admin route (add_pulled), and — when `serve_store` — every model in the store on first use.
// Configured models are loaded eagerly; unload() drops the others' runtimes and never touches the
// store's files (`a3s-power rm` does that).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/model_runtime.h"
#include "store/store.h"

namespace a3s::power::runtime {

struct ModelStatus {
  std::string name;
  std::string source;  // "path" | "store"
  bool loaded = false;
  std::optional<ModelDescription> description;  // when loaded
  std::optional<KvCacheStats> kv_cache;         // when loaded: its KV block pool
  std::optional<store::Manifest> manifest;      // store models
};

class ModelRegistry {
 public:
  // Loads `path` as model `name`; throws the engine's load errors.
  using Loader = std::function<std::shared_ptr<ModelRuntime>(const std::string& name, const std::string& path)>;

  // `store` may be null (no store models). serve_store: resolve any store model by name on demand
  // (and list them all); false: only added models are served.
  ModelRegistry(Loader loader, std::shared_ptr<store::Store> store, bool serve_store = true);

  // Serves the GGUF file at `path` as `name`. Throws Error(codes::kInvalidArgument) for a duplicate name
  // or a name that is not a valid model name (store/model_name.h: no control characters, ...).
  void add_path(const std::string& name, const std::string& path);
  // Serves store model `store_name` as `name` (must exist: Error "model_not_found"; names as above).
  void add_store(const std::string& name, const std::string& store_name);
  // Serves store model `name` (just pulled) under its own name, loaded on first use; a name already
  // served is left as it is.
  void add_pulled(const std::string& name);
  // Loads every added model now (startup). Throws the first load error.
  void load_all();

  // The loaded runtime for `name`, loading a store model on first use.
  // Throws Error(codes::kModelNotFound) for an unknown name, or the load error.
  std::shared_ptr<const ModelRuntime> acquire(const std::string& name);

  bool contains(const std::string& name) const;
  std::optional<ModelStatus> status(const std::string& name) const;
  std::vector<ModelStatus> list() const;  // sorted by name
  int loaded_count() const;

  enum class UnloadResult { kUnloaded, kNotFound, kConfigured };
  // Unloads `name` (running requests keep their runtime until they finish) and stops serving it
  // unless the store is served on demand. Configured models are refused (kConfigured) and stay.
  UnloadResult unload(const std::string& name);

  store::Store* store() const { return store_.get(); }

  // Where the whole message of an on-demand load failure goes (the server's log); the request gets a
  // message without paths (service_unavailable).
  void set_load_failure_log(std::function<void(const std::string&)> log) { log_ = std::move(log); }

 private:
  struct Entry {
    std::string path;
    bool from_store = false;
    std::string store_name;  // manifest name when from_store
    bool configured = false; // named in the configuration (add_path / add_store)
    std::shared_ptr<const ModelRuntime> runtime;
  };
  std::optional<Entry> resolve_locked(const std::string& name) const;

  Loader loader_;
  std::shared_ptr<store::Store> store_;
  bool serve_store_ = true;
  std::function<void(const std::string&)> log_;
  mutable std::mutex mu_;       // entries_
  std::mutex load_mu_;          // one load at a time
  std::map<std::string, Entry> entries_;
};

}  // namespace a3s::power::runtime
