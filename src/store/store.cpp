#include "store/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "a3s/power/error.h"
#include "base/atomic_write.h"
#include "base/build_info.h"
#include "base/utc_time.h"
#include "store/file_io.h"
#include "store/file_lock.h"
#include "store/http_download.h"
#include "store/manifest_json.h"
#include "store/model_name.h"
#include "store/model_summary.h"
#include "store/pull_ref.h"
#include "store/sha256_hasher.h"

namespace a3s::power::store {
namespace {

constexpr ErrorCode kIntegrity = codes::kIntegrity;
constexpr ErrorCode kOffline = codes::kOffline;
constexpr ErrorCode kSizeLimit = codes::kSizeLimitExceeded;
constexpr size_t kCopyChunk = 1u << 20;
constexpr size_t kMaxManifestBytes = 1u << 20;
constexpr uint64_t kProgressStep = 1u << 20;

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string{};
}

bool env_flag(const char* name) {
  std::string v = env_or_empty(name);
  std::transform(v.begin(), v.end(), v.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Stage changes and throttled byte counts, delivered to the caller's callback.
class ProgressReporter {
 public:
  explicit ProgressReporter(const std::function<void(const Progress&)>& cb) : cb_(cb) {}
  void stage(const std::string& s, uint64_t done = 0, uint64_t total = 0) {
    if (!cb_) return;
    last_ = done;
    cb_(Progress{done, total, s});
  }
  void bytes(const std::string& s, uint64_t done, uint64_t total, bool force = false) {
    if (!cb_ || (!force && done - last_ < kProgressStep && done != total)) return;
    last_ = done;
    cb_(Progress{done, total, s});
  }

 private:
  const std::function<void(const Progress&)>& cb_;
  uint64_t last_ = 0;
};

// Removes a staged file unless disarmed (nothing half-verified survives a failed pull).
class StagedFileGuard {
 public:
  explicit StagedFileGuard(std::string path) : path_(std::move(path)) {}
  ~StagedFileGuard() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  StagedFileGuard(const StagedFileGuard&) = delete;
  StagedFileGuard& operator=(const StagedFileGuard&) = delete;
  void disarm() { path_.clear(); }

 private:
  std::string path_;
};

struct Layout {
  std::string home, blobs, manifests, staging, lock;
  explicit Layout(const std::string& h)
      : home(h),
        blobs(h + "/blobs"),
        manifests(h + "/manifests"),
        staging(h + "/staging"),
        lock(h + "/lock") {}

  void create() const {
    std::error_code ec;
    const bool created = std::filesystem::create_directories(home, ec);
    if (ec) throw Error(codes::kIo, "cannot create store directory " + home + ": " + ec.message());
    if (created) ::chmod(home.c_str(), 0700);
    ensure_dir(blobs);
    ensure_dir(manifests);
    ensure_dir(staging);
  }
  std::string manifest_path(const std::string& name) const {
    return manifests + "/" + manifest_file_stem(name) + ".json";
  }
  std::string blob(const std::string& hex) const { return blobs + "/sha256-" + hex; }
};

std::optional<Manifest> read_manifest_file(const std::string& path) {
  if (!is_regular_file(path)) return std::nullopt;
  try {
    return manifest_from_json(nlohmann::json::parse(read_small_file(path, kMaxManifestBytes)));
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::vector<Manifest> read_all_manifests(const Layout& l) {
  std::vector<Manifest> out;
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(l.manifests.c_str()), &::closedir);
  if (!dir) {
    if (errno == ENOENT) return out;
    throw_io("cannot list", l.manifests);
  }
  while (const dirent* e = ::readdir(dir.get())) {
    const std::string fname = e->d_name;
    if (fname.size() <= 5 || fname.compare(fname.size() - 5, 5, ".json") != 0) continue;
    auto m = read_manifest_file(l.manifests + "/" + fname);
    // Only a manifest stored under its own name's file counts (guards against stray copies).
    if (m && manifest_file_stem(m->name) + ".json" == fname) out.push_back(std::move(*m));
  }
  std::sort(out.begin(), out.end(), [](const Manifest& a, const Manifest& b) { return a.name < b.name; });
  return out;
}

bool blob_intact(const Layout& l, const Manifest& m) {
  uint64_t size = 0;
  return is_regular_file(l.blob(m.digest.substr(7)), &size) && size == m.size;
}

// Removes `digest`'s blob when no manifest refers to it. Caller holds the store lock.
void collect_blob_if_unused(const Layout& l, const std::string& digest) {
  for (const auto& m : read_all_manifests(l))
    if (m.digest == digest) return;
  remove_file_if_exists(l.blob(digest.substr(7)));
}

struct Resolved {
  PullRef ref;
  std::optional<std::string> pin;  // lowercase hex
  std::string name;
};

Resolved resolve(const std::string& ref, const PullOptions& opts) {
  std::string endpoint = env_or_empty("HF_ENDPOINT");
  Resolved r{parse_pull_ref(ref, endpoint.empty() ? "https://huggingface.co" : endpoint), std::nullopt, {}};
  r.pin = r.ref.pin;
  if (opts.sha256) {
    std::string hex = *opts.sha256;
    if (hex.rfind("sha256:", 0) == 0) hex.erase(0, 7);
    if (!is_sha256_hex(hex)) throw Error(codes::kInvalidArgument, "sha256 pin must be 64 hex characters");
    hex = lower(hex);
    if (r.pin && *r.pin != hex)
      throw Error(codes::kInvalidArgument, "the reference's @sha256 pin and the sha256 option differ");
    r.pin = hex;
  }
  r.name = opts.name ? *opts.name : r.ref.default_name;
  if (r.name.empty())
    throw Error(codes::kInvalidArgument, "cannot derive a model name from the reference; give a name");
  validate_model_name(r.name);
  if (r.ref.kind == PullRef::Kind::kLocalPath) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(r.ref.path, ec);
    if (!ec) r.ref.source = abs.lexically_normal().string();
  }
  return r;
}

}  // namespace

std::string default_home() {
  std::string h = env_or_empty("A3S_POWER_HOME");
  if (!h.empty()) return h;
  std::string home = env_or_empty("HOME");
  if (home.empty()) {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir) home = pw->pw_dir;
  }
  if (home.empty()) throw Error(codes::kIo, "cannot determine the home directory; set A3S_POWER_HOME");
  return home + "/.a3s/power";
}

Store::Store(std::string home) : home_(std::move(home)) {
  while (home_.size() > 1 && home_.back() == '/') home_.pop_back();
  if (home_.empty()) throw Error(codes::kInvalidArgument, "store home directory is empty");
}

std::string Store::blob_path(const std::string& digest) const {
  if (!is_valid_digest(digest))
    throw Error(codes::kInvalidArgument, "digest must be sha256:<64 lowercase hex>");
  return Layout(home_).blob(digest.substr(7));
}

std::vector<Manifest> Store::list() const {
  return read_all_manifests(Layout(home_));
}

std::optional<Manifest> Store::find(const std::string& name) const {
  if (!model_name_problem(name).empty()) return std::nullopt;
  auto m = read_manifest_file(Layout(home_).manifest_path(name));
  if (!m || m->name != name) return std::nullopt;
  return m;
}

bool Store::remove(const std::string& name) {
  if (!model_name_problem(name).empty()) return false;
  const Layout l(home_);
  if (!is_regular_file(l.manifest_path(name))) return false;
  FileLock lock = FileLock::acquire(l.lock);
  auto m = read_manifest_file(l.manifest_path(name));
  if (!m || m->name != name) return false;
  remove_file_if_exists(l.manifest_path(name));
  fsync_dir(l.manifests);
  collect_blob_if_unused(l, m->digest);
  return true;
}

namespace {

// Moves a verified staged file into blobs/ (or drops it when the blob already exists) and writes the
// manifest, all under the store lock. `staged` may be empty when the blob is known to exist.
Manifest commit(const Layout& l, const std::string& staged, const std::string& hex, uint64_t size,
                const ModelSummary& summary, const std::string& name, const std::string& source) {
  Manifest m;
  m.name = name;
  m.digest = "sha256:" + hex;
  m.size = size;
  m.format = "gguf";
  m.architecture = summary.architecture;
  m.quantization = summary.quantization;
  m.source = source;
  m.created = a3s::power::rfc3339_utc_now();

  FileLock lock = FileLock::acquire(l.lock);
  const std::string blob = l.blob(hex);
  uint64_t existing = 0;
  if (is_regular_file(blob, &existing) && existing == size) {
    if (!staged.empty()) remove_file_if_exists(staged);
  } else {
    if (staged.empty()) throw Error(codes::kIo, "blob disappeared from the store: sha256-" + hex);
    if (::rename(staged.c_str(), blob.c_str()) != 0) throw_io("cannot move download into", blob);
    fsync_dir(l.blobs);
  }
  const auto previous = read_manifest_file(l.manifest_path(name));
  // Pulling what a name already holds, from the same source, changes nothing (keeps `created`).
  if (previous && previous->name == name && previous->digest == m.digest && previous->source == m.source &&
      previous->size == m.size)
    return *previous;
  write_file_atomically(l.manifest_path(name), manifest_to_json(m).dump(2) + "\n", 0600);
  if (previous && previous->name == name && previous->digest != m.digest)
    collect_blob_if_unused(l, previous->digest);
  return m;
}

// Parses the staged bytes as GGUF; anything else is refused (the guard deletes them).
ModelSummary inspect(const std::string& path) {
  return summarize_model_file(path);
}

// The blob for `hex` is present: record `name` for it without transferring anything.
std::optional<Manifest> commit_existing_blob(const Layout& l, const std::string& hex, const std::string& name,
                                             const std::string& source) {
  uint64_t size = 0;
  if (!is_regular_file(l.blob(hex), &size)) return std::nullopt;
  const ModelSummary summary = inspect(l.blob(hex));
  return commit(l, "", hex, size, summary, name, source);
}

void check_pin(const std::optional<std::string>& pin, const std::string& hex) {
  if (pin && *pin != hex)
    throw Error(kIntegrity,
                "SHA-256 mismatch: expected " + *pin + ", got " + hex + "; the download was discarded");
}

Manifest pull_local(const Layout& l, const Resolved& r, const PullOptions& opts, ProgressReporter& progress) {
  // O_NONBLOCK: a FIFO must not block the open; it is refused as not a regular file below.
  UniqueFd src(::open(r.ref.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!src) {
    if (errno == ENOENT) throw Error(codes::kModelNotFound, "no such file: " + r.ref.path);
    throw_io("cannot open", r.ref.path);
  }
  struct stat st {};
  if (::fstat(src.get(), &st) != 0) throw_io("cannot stat", r.ref.path);
  if (!S_ISREG(st.st_mode)) throw Error(codes::kInvalidArgument, "not a regular file: " + r.ref.path);
  const auto total = static_cast<uint64_t>(st.st_size);
  if (opts.max_bytes && total > *opts.max_bytes)
    throw Error(kSizeLimit, "the file has " + std::to_string(total) + " bytes, above the limit of " +
                                std::to_string(*opts.max_bytes) + " bytes");

  std::string tmpl = l.staging + "/copy.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  UniqueFd dst(::mkostemp(buf.data(), O_CLOEXEC));  // mode 0600
  if (!dst) throw_io("cannot create a staging file in", l.staging);
  const std::string staged(buf.data());
  StagedFileGuard guard(staged);

  Sha256Hasher hasher;
  std::vector<char> chunk(kCopyChunk);
  uint64_t done = 0;
  progress.stage("copying", 0, total);
  for (;;) {
    const size_t n = pread_some(src.get(), chunk.data(), chunk.size(), done, r.ref.path);
    if (n == 0) break;
    if (opts.max_bytes && done + n > *opts.max_bytes)
      throw Error(kSizeLimit,
                  "the file grew above the limit of " + std::to_string(*opts.max_bytes) + " bytes");
    write_all(dst.get(), chunk.data(), n, staged);
    hasher.update(chunk.data(), n);
    done += n;
    progress.bytes("copying", done, total);
  }
  const std::string hex = hasher.finish_hex();
  progress.stage("verifying", done, done);
  check_pin(r.pin, hex);
  const ModelSummary summary = inspect(staged);
  fsync_fd(dst.get(), staged);
  dst.reset();
  Manifest m = commit(l, staged, hex, done, summary, r.name, r.ref.source);
  guard.disarm();
  return m;
}

Manifest pull_url(const Layout& l, const Resolved& r, const PullOptions& opts, ProgressReporter& progress) {
  if (!downloads_built()) throw not_built("downloading a model (https://, hf://)", "built without libcurl");
  const std::string key = sha256_hex(r.ref.url);
  const std::string partial = l.staging + "/" + key + ".partial";
  const std::string lock_path = l.staging + "/" + key + ".lock";

  // One download per URL at a time; a waiter reuses what the previous holder produced.
  FileLock lock;
  for (;;) {
    std::string note;
    lock = FileLock::acquire_transient(lock_path, &note);
    if (lock.held()) break;
    if (note.rfind("sha256:", 0) == 0 && is_valid_digest(note)) {
      const std::string hex = note.substr(7);
      if (!r.pin || *r.pin == hex)
        if (auto m = commit_existing_blob(l, hex, r.name, r.ref.source)) return *m;
    }
  }
  if (r.pin)
    if (auto m = commit_existing_blob(l, *r.pin, r.name, r.ref.source)) return *m;

  // Private staging file named after the URL, so that a retry finds and resumes it.
  UniqueFd fd(::open(partial.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd && errno == EEXIST) fd = UniqueFd(::open(partial.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) throw_io("cannot open staging file", partial);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_io("cannot stat", partial);
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid())
    throw Error(codes::kIo, "staging file is not a regular file owned by this user: " + partial);
  ::fchmod(fd.get(), 0600);
  uint64_t resume_from = static_cast<uint64_t>(st.st_size);

  Sha256Hasher hasher;
  if (resume_from > 0) {  // rehash what an earlier attempt already stored
    std::vector<char> chunk(kCopyChunk);
    uint64_t off = 0;
    while (off < resume_from) {
      const size_t n = pread_some(fd.get(), chunk.data(), std::min<uint64_t>(chunk.size(), resume_from - off),
                                  off, partial);
      if (n == 0) break;
      hasher.update(chunk.data(), n);
      off += n;
    }
    resume_from = off;
  }

  DownloadRequest req;
  req.url = r.ref.url;
  req.host = r.ref.host;
  req.allow_plain_http = r.ref.loopback_http;
  req.ca_file = opts.ca_file;
  if (r.ref.huggingface) req.bearer_token = env_or_empty("HF_TOKEN");
  req.max_bytes = opts.max_bytes;
  req.fd = fd.get();
  req.staging_path = partial;
  req.resume_from = resume_from;
  req.hasher = &hasher;
  req.on_progress = [&progress](uint64_t done, uint64_t total) {
    progress.bytes("downloading", done, total);
  };

  progress.stage("downloading", resume_from, 0);
  DownloadResult res;
  try {
    res = download_to_file(req);
  } catch (const Error& e) {
    // Transient failures keep the partial file for resume; a refused download leaves nothing.
    uint64_t size = 0;
    const bool refused = e.kind() == kSizeLimit || e.kind() == codes::kModelNotFound;
    if (refused || (is_regular_file(partial, &size) && size == 0)) ::unlink(partial.c_str());
    throw;
  }
  // From here on the bytes are either committed or deleted.
  StagedFileGuard guard(partial);
  const std::string hex = hasher.finish_hex();
  progress.stage("verifying", res.size, res.size);
  if (opts.max_bytes && res.size > *opts.max_bytes)
    throw Error(kSizeLimit,
                "the download exceeds the limit of " + std::to_string(*opts.max_bytes) + " bytes");
  check_pin(r.pin, hex);
  const ModelSummary summary = inspect(partial);
  fsync_fd(fd.get(), partial);
  fd.reset();
  Manifest m = commit(l, partial, hex, res.size, summary, r.name, r.ref.source);
  guard.disarm();
  lock.write_note(m.digest);
  return m;
}

}  // namespace

Manifest Store::pull(const std::string& ref, const PullOptions& opts,
                     const std::function<void(const Progress&)>& progress_cb) {
  ProgressReporter progress(progress_cb);
  progress.stage("resolving");
  const Resolved r = resolve(ref, opts);
  const Layout l(home_);
  const bool offline = opts.offline || env_flag("A3S_POWER_OFFLINE");
  const bool network = r.ref.kind == PullRef::Kind::kUrl;

  auto finish = [&progress](Manifest m) {
    progress.stage("done", m.size, m.size);
    return m;
  };

  if (!offline || !network) l.create();

  // A pinned digest that is already stored is never transferred again.
  if (r.pin && is_regular_file(l.blob(*r.pin))) {
    if (offline) l.create();
    if (auto m = commit_existing_blob(l, *r.pin, r.name, r.ref.source)) return finish(*m);
  }
  // The same name from the same source is already here (unpinned): nothing to do unless forced.
  if (!r.pin && !opts.force) {
    if (auto m = find(r.name); m && m->source == r.ref.source && blob_intact(l, *m)) return finish(*m);
  }
  if (offline && network) {
    if (auto m = find(r.name); m && blob_intact(l, *m) && (!r.pin || m->digest == "sha256:" + *r.pin))
      return finish(*m);
    throw Error(kOffline,
                "model '" + r.name + "' is not in the store and downloads are disabled (offline mode)");
  }
  return finish(network ? pull_url(l, r, opts, progress) : pull_local(l, r, opts, progress));
}

}  // namespace a3s::power::store
