#include "runtime/model_registry.h"

#include "a3s/power/error.h"
#include "base/printable.h"
#include "store/model_name.h"

namespace a3s::power::runtime {
namespace {

// A served name is what clients send as "model": the store's rules for model names (non-empty, at
// most 256 bytes, valid UTF-8, no control characters).
void check_served_name(const std::string& name) {
  if (const std::string problem = store::model_name_problem(name); !problem.empty()) {
    throw Error(codes::kInvalidArgument, "served model name '" + printable_name(name) + "': " + problem);
  }
}

}  // namespace

ModelRegistry::ModelRegistry(Loader loader, std::shared_ptr<store::Store> store, bool serve_store)
    : loader_(std::move(loader)), store_(std::move(store)), serve_store_(serve_store) {}

void ModelRegistry::add_path(const std::string& name, const std::string& path) {
  check_served_name(name);
  std::lock_guard lk(mu_);
  if (entries_.count(name)) {
    throw Error(codes::kInvalidArgument, "model name '" + printable_name(name) + "' is configured twice");
  }
  entries_[name] = Entry{path, false, "", true, nullptr};
}

void ModelRegistry::add_store(const std::string& name, const std::string& store_name) {
  check_served_name(name);
  std::optional<store::Manifest> m = store_ ? store_->find(store_name) : std::nullopt;
  if (!m) throw Error(codes::kModelNotFound, "model '" + printable_name(store_name) + "' is not in the model store");
  std::lock_guard lk(mu_);
  if (entries_.count(name)) {
    throw Error(codes::kInvalidArgument, "model name '" + printable_name(name) + "' is configured twice");
  }
  entries_[name] = Entry{store_->blob_path(m->digest), true, store_name, true, nullptr};
}

void ModelRegistry::add_pulled(const std::string& name) {
  std::optional<store::Manifest> m = store_ ? store_->find(name) : std::nullopt;
  if (!m) throw Error(codes::kModelNotFound, "the pulled model is not in the model store");
  std::lock_guard lk(mu_);
  if (entries_.count(name)) return;
  entries_[name] = Entry{store_->blob_path(m->digest), true, name, false, nullptr};
}

void ModelRegistry::load_all() {
  std::vector<std::string> names;
  {
    std::lock_guard lk(mu_);
    for (auto& [n, e] : entries_) names.push_back(n);
  }
  for (auto& n : names) acquire(n);
}

std::optional<ModelRegistry::Entry> ModelRegistry::resolve_locked(const std::string& name) const {
  auto it = entries_.find(name);
  if (it != entries_.end()) return it->second;
  if (store_ && serve_store_) {
    if (auto m = store_->find(name)) return Entry{store_->blob_path(m->digest), true, name, false, nullptr};
  }
  return std::nullopt;
}

std::shared_ptr<const ModelRuntime> ModelRegistry::acquire(const std::string& name) {
  {
    std::lock_guard lk(mu_);
    auto it = entries_.find(name);
    if (it != entries_.end() && it->second.runtime) return it->second.runtime;
  }
  std::lock_guard load_lk(load_mu_);
  std::optional<Entry> e;
  {
    std::lock_guard lk(mu_);
    e = resolve_locked(name);
    if (e && e->runtime) return e->runtime;  // loaded while we waited
  }
  if (!e) throw Error(codes::kModelNotFound, "the model does not exist");  // the name is request text
  std::shared_ptr<const ModelRuntime> rt;
  try {
    rt = loader_(name, e->path);
  } catch (const Error& err) {
    // A model loaded on a request's behalf: file and store errors name server paths, which a client
    // must not see. The configured models load at startup, where the operator gets the whole message.
    if (e->configured || (err.kind() != codes::kIo && err.kind() != codes::kInvalidModel)) throw;
    if (log_) log_("model load failed: " + std::string(err.what()));
    throw Error(codes::kServiceUnavailable, "the model could not be loaded (the server log has the details)");
  }
  std::lock_guard lk(mu_);
  Entry& slot = entries_[name];
  slot.path = e->path;
  slot.from_store = e->from_store;
  slot.store_name = e->store_name;
  slot.configured = e->configured;
  slot.runtime = rt;
  return rt;
}

bool ModelRegistry::contains(const std::string& name) const {
  std::lock_guard lk(mu_);
  return resolve_locked(name).has_value();
}

std::optional<ModelStatus> ModelRegistry::status(const std::string& name) const {
  std::lock_guard lk(mu_);
  auto e = resolve_locked(name);
  if (!e) return std::nullopt;
  ModelStatus s;
  s.name = name;
  s.source = e->from_store ? "store" : "path";
  s.loaded = e->runtime != nullptr;
  if (e->runtime) s.description = e->runtime->description();
  if (e->from_store && store_) s.manifest = store_->find(e->store_name);
  return s;
}

std::vector<ModelStatus> ModelRegistry::list() const {
  std::map<std::string, ModelStatus> out;
  std::vector<store::Manifest> manifests =
      store_ && serve_store_ ? store_->list() : std::vector<store::Manifest>{};
  std::lock_guard lk(mu_);
  for (auto& m : manifests) {
    ModelStatus s;
    s.name = m.name;
    s.source = "store";
    s.manifest = m;
    out[m.name] = std::move(s);
  }
  for (auto& [name, e] : entries_) {
    ModelStatus& s = out[name];
    s.name = name;
    s.source = e.from_store ? "store" : "path";
    s.loaded = e.runtime != nullptr;
    if (e.runtime) {
      s.description = e.runtime->description();
      s.kv_cache = e.runtime->kv_cache_stats();
    }
    if (!e.from_store) s.manifest.reset();
  }
  std::vector<ModelStatus> v;
  for (auto& [n, s] : out) v.push_back(std::move(s));
  return v;
}

int ModelRegistry::loaded_count() const {
  std::lock_guard lk(mu_);
  int n = 0;
  for (auto& [name, e] : entries_) n += e.runtime != nullptr;
  return n;
}

ModelRegistry::UnloadResult ModelRegistry::unload(const std::string& name) {
  std::lock_guard load_lk(load_mu_);
  std::lock_guard lk(mu_);
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    // A store model served on demand and not loaded: nothing to unload, but it is served.
    return resolve_locked(name) ? UnloadResult::kUnloaded : UnloadResult::kNotFound;
  }
  if (it->second.configured) return UnloadResult::kConfigured;
  entries_.erase(it);  // running requests keep their runtime until they finish
  return UnloadResult::kUnloaded;
}

}  // namespace a3s::power::runtime
