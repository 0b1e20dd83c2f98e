#include "store/http_download.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <exception>

#include "a3s/power/error.h"
#include "base/syscall.h"
#include "http_client/curl_handle.h"
#include "store/file_io.h"
#include "store/store.h"

namespace a3s::power::store {
namespace {

constexpr uint64_t kProgressStep = 1u << 20;      // report about once per MiB
constexpr uint64_t kMaxDiscardedBody = 1u << 20;  // error bodies we read and drop
constexpr ErrorCode kSizeLimit = codes::kSizeLimitExceeded;

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "bytes <first>-<last>/<total|*>" or "bytes */<total>".
struct ContentRange {
  std::optional<uint64_t> first, last, total;
};
std::optional<ContentRange> parse_content_range(std::string_view v) {
  v = client::trim_header_text(v);
  if (v.substr(0, 6) != "bytes ") return std::nullopt;
  v.remove_prefix(6);
  const size_t slash = v.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange cr;
  const std::string_view range = v.substr(0, slash), total = v.substr(slash + 1);
  if (total != "*") {
    cr.total = parse_u64(total);
    if (!cr.total) return std::nullopt;
  }
  if (range != "*") {
    const size_t dash = range.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    cr.first = parse_u64(range.substr(0, dash));
    cr.last = parse_u64(range.substr(dash + 1));
    if (!cr.first || !cr.last || *cr.last < *cr.first) return std::nullopt;
  }
  return cr;
}

struct Transfer {
  const DownloadRequest* req = nullptr;
  uint64_t start = 0;   // offset requested in this attempt
  uint64_t offset = 0;  // bytes in the file
  uint64_t total = 0;   // expected final size (0 unknown)
  long status = 0;      // status of the response being received
  std::optional<uint64_t> content_length;
  std::string content_range;
  bool body_started = false;  // the final 2xx response's body is being written
  bool resumed = false;
  bool restart = false;  // the server's range answer is unusable: restart from zero
  uint64_t discarded = 0;
  uint64_t last_report = 0;
  std::optional<Error> error;
  std::exception_ptr callback_exception;

  void truncate_to_zero() {
    if (::ftruncate(req->fd, 0) != 0) throw_io("cannot truncate", req->staging_path);
    req->hasher->reset();
    offset = 0;
  }

  // Headers of a 2xx response are complete: decide how its body is stored. False aborts.
  bool begin_body() {
    if (status == 206) {
      auto cr = parse_content_range(content_range);
      if (!cr || !cr->first || *cr->first != offset) {
        restart = true;
        return false;
      }
      total = cr->total ? *cr->total : (content_length ? offset + *content_length : 0);
      resumed = offset > 0;
    } else if (status == 200) {
      if (offset > 0) truncate_to_zero();
      total = content_length.value_or(0);
    } else {
      error = Error(codes::kIo, "unexpected HTTP status " + std::to_string(status) + " from " + req->host);
      return false;
    }
    if (req->max_bytes && total > *req->max_bytes) {
      error =
          Error(kSizeLimit, "the server announces " + std::to_string(total) + " bytes, above the limit of " +
                                std::to_string(*req->max_bytes) + " bytes");
      return false;
    }
    body_started = true;
    return true;
  }

  void report(bool force) {
    if (!req->on_progress) return;
    if (!force && offset - last_report < kProgressStep) return;
    last_report = offset;
    req->on_progress(offset, total);
  }
};

size_t on_header(char* buf, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  const size_t len = size * n;
  try {
    const std::string_view line = client::trim_header_text(std::string_view(buf, len));
    if (line.substr(0, 5) == "HTTP/") {
      const size_t sp = line.find(' ');
      const auto code = sp == std::string_view::npos ? std::nullopt : parse_u64(line.substr(sp + 1, 3));
      t->status = code ? static_cast<long>(*code) : 0;
      t->content_length.reset();
      t->content_range.clear();
      return len;
    }
    if (line.empty()) {
      if (t->status >= 200 && t->status < 300 && !t->body_started && !t->begin_body()) return 0;
      return len;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return len;
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string_view value = client::trim_header_text(line.substr(colon + 1));
    if (name == "content-length") t->content_length = parse_u64(value);
    if (name == "content-range") t->content_range = std::string(value);
    return len;
  } catch (...) {
    t->callback_exception = std::current_exception();
    return 0;
  }
}

size_t on_body(char* buf, size_t size, size_t n, void* ud) {
  auto* t = static_cast<Transfer*>(ud);
  const size_t len = size * n;
  try {
    if (!t->body_started) {  // body of an error response: read a little, keep nothing
      t->discarded += len;
      return t->discarded > kMaxDiscardedBody ? 0 : len;
    }
    const auto* max = &t->req->max_bytes;
    if (*max && t->offset + len > **max) {
      t->error = Error(kSizeLimit, "the download exceeds the limit of " + std::to_string(**max) + " bytes");
      return 0;
    }
    // Positioned writes: the file offset never matters, even after a truncation.
    size_t done = 0;
    while (done < len) {
      const ssize_t w = retry_on_eintr(
          [&] { return ::pwrite(t->req->fd, buf + done, len - done, static_cast<off_t>(t->offset + done)); });
      if (w < 0) throw_io("cannot write", t->req->staging_path);
      done += static_cast<size_t>(w);
    }
    t->req->hasher->update(buf, len);
    t->offset += len;
    t->report(false);
    return len;
  } catch (...) {
    t->callback_exception = std::current_exception();
    return 0;
  }
}

enum class Attempt { kDone, kRestart };

Attempt attempt(const DownloadRequest& req, Transfer& t, DownloadResult& out) {
  const client::CurlEasy curl = client::make_curl_easy();
  CURL* c = curl.get();
  const std::string range = std::to_string(t.start) + "-";
  client::TransferOptions o;
  o.url = req.url;
  o.protocols = req.allow_plain_http ? "http,https" : "https";
  o.max_redirects = 10;
  o.tls_version = CURL_SSLVERSION_TLSv1_2;
  o.no_proxy = req.allow_plain_http;
  o.ca_file = req.ca_file;
  o.connect_timeout_ms = 30'000;
  o.stall_timeout_s = 60;  // abort when stalled for a minute
  client::set_transfer_options(c, o);
  if (!req.bearer_token.empty()) {
    curl_easy_setopt(c, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BEARER));
    curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, req.bearer_token.c_str());
  }
  if (t.start > 0) curl_easy_setopt(c, CURLOPT_RANGE, range.c_str());
  client::set_receivers(c, &on_header, &on_body, &t);

  const CURLcode rc = curl_easy_perform(c);
  if (t.callback_exception) std::rethrow_exception(t.callback_exception);
  if (t.error) throw *t.error;
  if (t.restart) return Attempt::kRestart;
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (!t.body_started && status >= 400) {
    if (status == 404 || status == 410)
      throw Error(codes::kModelNotFound,
                  "model not found on " + req.host + " (HTTP " + std::to_string(status) + ")");
    if (status == 416 && t.start > 0) {
      auto cr = parse_content_range(t.content_range);
      if (cr && cr->total && *cr->total == t.start) {  // the staged file is already complete
        out.size = t.start;
        out.resumed = true;
        return Attempt::kDone;
      }
      return Attempt::kRestart;
    }
    throw Error(codes::kIo, "download from " + req.host + " failed: HTTP " + std::to_string(status));
  }
  if (rc != CURLE_OK) {
    if (t.body_started)
      throw Error(codes::kIo, "download from " + req.host + " interrupted after " + std::to_string(t.offset) +
                                  " bytes (" + curl_easy_strerror(rc) + "); pull again to resume");
    throw Error(codes::kIo, "download from " + req.host + " failed: " + curl_easy_strerror(rc));
  }
  if (!t.body_started)
    throw Error(codes::kIo, "download from " + req.host + " failed: HTTP " + std::to_string(status));
  if (t.total != 0 && t.offset != t.total)
    throw Error(codes::kIo, "download from " + req.host + " ended after " + std::to_string(t.offset) +
                                " of " + std::to_string(t.total) + " bytes; pull again to resume");
  t.report(true);
  out.size = t.offset;
  out.resumed = t.resumed;
  return Attempt::kDone;
}

}  // namespace

bool downloads_built() noexcept {
  return true;
}

DownloadResult download_to_file(const DownloadRequest& req) {
  if (req.fd < 0 || req.hasher == nullptr) throw Error(codes::kInternal, "download without a staging file");
  client::curl_global_init_once();
  uint64_t start = req.resume_from;
  for (int i = 0; i < 2; ++i) {
    Transfer t;
    t.req = &req;
    t.start = start;
    t.offset = start;
    t.last_report = start;
    DownloadResult out;
    if (attempt(req, t, out) == Attempt::kDone) return out;
    // The server could not continue our partial file: start over from zero (once).
    if (::ftruncate(req.fd, 0) != 0) throw_io("cannot truncate", req.staging_path);
    req.hasher->reset();
    start = 0;
    if (req.resume_from == 0) break;
  }
  throw Error(codes::kIo,
              "download from " + req.host + " failed: the server's range answers are inconsistent");
}

}  // namespace a3s::power::store
