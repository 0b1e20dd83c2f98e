// Content-addressed model store under $A3S_POWER_HOME (default ~/.a3s/power):
//   blobs/sha256-<hex>             model bytes, named by their SHA-256 (written only after verification)
//   manifests/<escaped name>.json  {name, digest, size, format, architecture, quantization, source, created}
//   staging/                       partial downloads (<sha256 of URL>.partial, resumable) and their
//                                  per-download lock files; empty when no pull is running or pending
//   lock                           flock(2) taken around every change to blobs/ and manifests/
// Names never collide: the manifest file name is an injective escape of the model name, so
// "org/repo:quant" and "org-repo-quant" are different manifests (see model_name.h).
//
// Pull references (REF):
//   /path/to/model.gguf                 local file, copied into the store while hashing
//   https://host/path/model.gguf        downloaded with libcurl (TLS peer verification always on)
//   http://127.0.0.1:PORT/model.gguf    plain HTTP only to loopback hosts (127.0.0.0/8, ::1, localhost)
//   hf://org/repo/path/file.gguf        https://huggingface.co/org/repo/resolve/main/path/file.gguf
//                                       ($HF_ENDPOINT replaces https://huggingface.co; $HF_TOKEN is
//                                       sent as a bearer token to that host only)
// Any REF may end in "@sha256:<64 hex>" to pin the content (same as PullOptions::sha256).
// Default model name: the last path component of the REF without a trailing ".gguf" (query and
// fragment ignored), e.g. hf://ggml-org/models/tinyllamas/stories260K.gguf → "stories260K" and
// /models/llama-q4.gguf → "llama-q4". PullOptions::name overrides it.
//
// Model names: non-empty, at most 256 bytes, valid UTF-8, no control characters.
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
  std::string source;        // what was pulled (path, https URL, hf:// ref; query/credentials stripped)
  std::string created;       // RFC 3339 UTC
};

struct PullOptions {
  std::optional<std::string> name;    // manifest name (default derived from the ref)
  std::optional<std::string> sha256;  // pin (hex); also parsed from "REF@sha256:<hex>"
  std::optional<uint64_t> max_bytes;  // refuse larger downloads
  bool offline = false;               // fail closed unless already verified in the store
  // Without a pin, a pull whose name already has a manifest with the same source (and an intact
  // blob) returns that manifest without touching the network; force re-downloads it.
  bool force = false;
  // CA certificates (PEM) that https downloads trust instead of the system store; "" → the system store.
  std::string ca_file;
};

struct Progress {
  uint64_t done = 0, total = 0;  // bytes (total 0 when unknown)
  // "resolving", "downloading" (network), "copying" (local path), "verifying", "done".
  std::string stage;
};

// Whether this build downloads models (https://, hf://, loopback http://): not without the HTTP client
// (A3S_WITH_CURL=OFF, the tee-minimal profile), where pulling a remote reference throws
// Error(codes::kNotBuilt) before anything is staged. Local paths are copied either way.
bool downloads_built() noexcept;

class Store {
 public:
  explicit Store(std::string home);  // creates directories on first write
  const std::string& home() const { return home_; }

  // Pulls REF (see above) into the store and writes its manifest; returns the manifest.
  //
  // Downloads go to staging/<sha256 of URL>.partial (O_EXCL, 0600) and resume with an HTTP Range
  // request when a previous attempt was interrupted (a 200 answer restarts from zero). Bytes are
  // hashed while they are written; the SHA-256 and the size are verified, the file is parsed as
  // GGUF, fsync'ed and renamed into blobs/ under the store lock. Concurrent pulls of the same URL
  // (threads or processes) download once: the others wait on the staging lock and reuse the blob.
  // A pinned digest whose blob is already present is never downloaded again.
  //
  // Offline (opts.offline or A3S_POWER_OFFLINE=1|true|yes): no network access; succeeds only when
  // the pinned digest's blob is present or the name already has a manifest (with the pinned digest,
  // if any) and an intact blob. Local paths are still copied (no network involved).
  //
  // `progress` is called from the pulling thread (at most about once per MiB plus each stage
  // change); an exception thrown by it aborts the pull (a partial download is kept for resume) and
  // is rethrown.
  //
  // Throws Error:
  //   "invalid_argument"    malformed REF, pin or name; http:// to a non-loopback host
  //   "integrity_error"     pin or size mismatch (the staged bytes are deleted; nothing is left)
  //   "size_limit_exceeded" announced or streamed size above max_bytes (staged bytes deleted)
  //   "invalid_model"       the bytes are not a valid GGUF file (staged bytes deleted)
  //   "model_not_found"     local path missing, HTTP 404/410
  //   "offline"             offline and not already in the store
  //   "io_error"            network / HTTP / file-system failure (a partial download is kept)
  Manifest pull(const std::string& ref, const PullOptions& opts,
                const std::function<void(const Progress&)>& progress = {});
  // Every manifest, sorted by name (unreadable manifest files are skipped).
  std::vector<Manifest> list() const;
  // The manifest for `name`; nullopt when absent or when `name` is not a valid model name.
  std::optional<Manifest> find(const std::string& name) const;
  bool remove(const std::string& name);  // removes the manifest; the blob when no manifest uses it
  // home/blobs/sha256-<hex> for digest "sha256:<hex>" (64 lowercase hex); throws
  // Error(codes::kInvalidArgument) for any other digest string. The file may not exist.
  std::string blob_path(const std::string& digest) const;

 private:
  std::string home_;
};

// $A3S_POWER_HOME, else $HOME/.a3s/power.
std::string default_home();

}  // namespace a3s::power::store
