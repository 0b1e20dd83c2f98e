// One HTTP(S) download into an already-open staging file, resuming with a Range request.
//
// Protocol rules (RFC 9110 §14): when `resume_from` > 0 the request carries
// "Range: bytes=<resume_from>-". A 206 answer must carry "Content-Range: bytes <resume_from>-<last>/<total>"
// and is appended; a 200 answer means the server ignored the range: the file is truncated, the
// hasher reset and the download restarts from zero. A 416 whose Content-Range total equals
// `resume_from` means the staged file is already complete; any other 416 restarts from zero.
// Redirects are followed to https:// only. TLS peer and host verification are always on.
// Neither the URL (it may carry signed query strings) nor the token ever appears in errors.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "store/sha256_hasher.h"

namespace a3s::power::store {

struct DownloadRequest {
  std::string url;
  std::string host;                   // for error messages
  bool allow_plain_http = false;      // loopback http:// (checked by the caller)
  std::string ca_file;                // CA certificates to trust (PEM); "" → the system store
  std::string bearer_token;           // sent to the origin host only (never across redirects)
  std::optional<uint64_t> max_bytes;  // refuse / abort above this total size
  int fd = -1;                        // staging file, opened read-write
  std::string staging_path;           // for error messages
  uint64_t resume_from = 0;           // bytes already in the file (and already in `hasher`)
  Sha256Hasher* hasher = nullptr;
  // Called with (bytes in the file, total or 0 when unknown) about once per MiB and at the end.
  // An exception thrown here aborts the transfer and is rethrown by download_to_file().
  std::function<void(uint64_t, uint64_t)> on_progress;
};

struct DownloadResult {
  uint64_t size = 0;     // bytes in the staging file (all hashed)
  bool resumed = false;  // the server answered 206 to our Range request
};

// Throws Error:
//   "size_limit_exceeded"  announced total or streamed bytes above max_bytes
//   "model_not_found"      HTTP 404 / 410
//   "io_error"             network failure, other HTTP status, short body, bad Content-Range, disk
DownloadResult download_to_file(const DownloadRequest& req);

}  // namespace a3s::power::store
