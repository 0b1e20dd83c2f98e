// Content-addressed model store under $A3S_POWER_HOME (default ~/.a3s/power):
//   blobs/sha256-<hex>          model bytes, named by their SHA-256
//   manifests/<escaped name>.json  {name, digest, size, format, architecture, quantization, source, created}
// Names never collide: the manifest file name is an injective escape of the model name, so
// "org/repo:quant" and "org-repo-quant" are different manifests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace a3s::power::store {

struct Manifest {
  std::string name;
  std::string digest;        // "sha256:<hex>"
  uint64_t size = 0;         // bytes
  std::string format;        // "gguf"
  std::string architecture;  // from GGUF metadata
  std::string quantization;  // dominant tensor type, e.g. "Q4_K"
  std::string source;        // what was pulled (path, https URL, hf:// ref)
  std::string created;       // RFC 3339 UTC
};

struct PullOptions {
  std::optional<std::string> name;       // manifest name (default derived from the ref)
  std::optional<std::string> sha256;     // pin (hex); also parsed from "REF@sha256:<hex>"
  std::optional<uint64_t> max_bytes;     // refuse larger downloads
  bool offline = false;                  // fail closed unless already verified in the store
};

struct Progress {
  uint64_t done = 0, total = 0;  // bytes (total 0 when unknown)
  std::string stage;             // "resolving", "downloading", "verifying", "done"
};

class Store {
 public:
  explicit Store(std::string home);  // creates directories on first write
  const std::string& home() const { return home_; }

  // Pulls REF = local path | https URL | hf://org/repo/file.gguf, optionally "@sha256:<hex>".
  // Throws Error: "integrity_error" (pin or size mismatch; nothing left behind), "offline",
  // "io_error", "invalid_argument".
  Manifest pull(const std::string& ref, const PullOptions& opts,
                const std::function<void(const Progress&)>& progress = {});
  std::vector<Manifest> list() const;
  std::optional<Manifest> find(const std::string& name) const;
  bool remove(const std::string& name);  // removes the manifest; the blob when no manifest uses it
  std::string blob_path(const std::string& digest) const;

 private:
  std::string home_;
};

// $A3S_POWER_HOME, else $HOME/.a3s/power.
std::string default_home();

}  // namespace a3s::power::store
