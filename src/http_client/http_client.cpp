#include "http_client/http_client.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <exception>

#include "a3s/power/error.h"
#include "http_client/curl_handle.h"
#include "http_client/http_client_built.h"
#include "http_client/server_error.h"
#include "http_client/server_route.h"

namespace a3s::power::client {
namespace {

constexpr std::size_t kMaxErrorBody = 1u << 20;  // error bodies beyond this are cut (not parsed)

bool is_success(int status) {
  return status >= 200 && status < 300;
}

bool is_event_stream(std::string_view content_type) {
  std::string ct(content_type.substr(0, content_type.find(';')));
  std::transform(ct.begin(), ct.end(), ct.begin(), [](unsigned char c) { return std::tolower(c); });
  while (!ct.empty() && ct.back() == ' ') ct.pop_back();
  return ct == "text/event-stream";
}

// State shared with the libcurl callbacks of one transfer.
struct Transfer {
  CURL* curl = nullptr;
  bool streaming = false;
  int status = 0;
  std::string content_type;
  bool headers_seen = false;
  std::string body;  // non-streaming body, or the error body of a streaming request
  std::size_t body_limit = 0;
  bool body_too_large = false;
  SseParser parser;
  const std::function<bool(const SseEvent&)>* on_event = nullptr;
  bool stopped = false;
  const std::atomic<bool>* cancel = nullptr;
  bool cancelled = false;
  std::exception_ptr failure;  // thrown by on_event / the parser
  std::vector<std::pair<std::string, std::string>> headers;

  bool stream_body() const { return streaming && is_success(status) && is_event_stream(content_type); }
};

void read_response_head(Transfer& t) {
  if (t.headers_seen) return;
  t.headers_seen = true;
  long code = 0;
  curl_easy_getinfo(t.curl, CURLINFO_RESPONSE_CODE, &code);
  t.status = static_cast<int>(code);
  char* ct = nullptr;
  if (curl_easy_getinfo(t.curl, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct != nullptr) t.content_type = ct;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t n = size * count;
  try {
    read_response_head(t);
    if (!t.stream_body()) {
      if (t.body.size() + n > t.body_limit) {
        t.body_too_large = true;
        return 0;  // abort the transfer
      }
      t.body.append(data, n);
      return n;
    }
    t.parser.feed(std::string_view(data, n), [&t](SseEvent&& e) {
      if (!t.stopped && !(*t.on_event)(e)) t.stopped = true;
    });
    return t.stopped ? 0 : n;
  } catch (...) {
    t.failure = std::current_exception();
    return 0;
  }
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// One header line of the response ("Name: value\r\n"; the status line and the blank line too).
size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t n = size * count;
  const std::string_view line(data, n);
  if (line.rfind("HTTP/", 0) == 0) {
    t.headers.clear();  // a new response (e.g. after 100 Continue)
    return n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  try {
    t.headers.emplace_back(lowercase(trim_header_text(line.substr(0, colon))),
                           std::string(trim_header_text(line.substr(colon + 1))));
  } catch (...) {
    t.failure = std::current_exception();
    return 0;
  }
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& t = *static_cast<Transfer*>(user);
  if (t.cancel != nullptr && t.cancel->load()) {
    t.cancelled = true;
    return 1;  // abort
  }
  return 0;
}

void check_header_value(const std::string& v) {
  for (unsigned char c : v) {
    if (c < 0x20 || c == 0x7f) {
      throw Error(codes::kInvalidArgument, "the API key contains control characters");
    }
  }
}

}  // namespace

bool http_client_built() noexcept {
  return true;
}

struct HttpClient::Transport {
  ServerRoute route;
  CurlEasy curl;

  // Sets up the next transfer on the handle: the URL of `path`, TLS (or the RA-TLS pin), the route
  // (vsock: through a bridge), timeouts and `headers`.
  void prepare(const ClientOptions& opts, std::string_view path, const CurlHeaders& headers, long total_timeout_ms);
  [[noreturn]] void throw_transport_error(const ClientOptions& opts, CURLcode rc, const char* errbuf);
};

void HttpClient::Transport::prepare(const ClientOptions& opts, std::string_view path, const CurlHeaders& headers,
                                    long total_timeout_ms) {
  CURL* c = curl.get();
  curl_easy_reset(c);  // keeps the connection cache
  TransferOptions o;
  o.protocols = "http,https";
  o.ca_file = opts.ca_file;
  if (!opts.pinned_spki.empty()) {
    o.verify_peer = false;  // replaced by the pin: the RA-TLS certificate is self-signed
    o.pinned_public_key = opts.pinned_spki;
    o.protocols = "https";
  }
  // A loopback server is always reached directly; remote ones honour the proxy environment.
  o.no_proxy = is_loopback_host(opts.url.host());
  route.apply(o, path);  // the URL libcurl requests (vsock: connects, through a bridge, no proxy)
  o.connect_timeout_ms = opts.connect_timeout_ms;
  o.timeout_ms = total_timeout_ms;
  o.user_agent = "a3s-power-client";
  o.headers = &headers;
  set_transfer_options(c, o);
}

void HttpClient::Transport::throw_transport_error(const ClientOptions& opts, CURLcode rc, const char* errbuf) {
  // vsock: a connection the bridge could not make reaches libcurl as one closed at once.
  if (std::string why = route.take_connect_error(); !why.empty())
    throw Error(codes::kServerUnreachable, why);
  const std::string where = opts.url.display();
  std::string detail =
      errbuf != nullptr && errbuf[0] != '\0' ? one_line(errbuf, 200) : curl_easy_strerror(rc);
  long os_errno = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_OS_ERRNO, &os_errno);
  switch (rc) {
    case CURLE_COULDNT_CONNECT:
      if (os_errno == ECONNREFUSED) {
        throw Error(codes::kServerUnreachable, "cannot connect to the server at " + where +
                                            ": connection refused (is `a3s-power serve` running?)");
      }
      throw Error(codes::kServerUnreachable, "cannot connect to the server at " + where + ": " + detail);
    case CURLE_COULDNT_RESOLVE_HOST:
      throw Error(codes::kServerUnreachable, "cannot resolve the server host of " + where);
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      throw Error(codes::kServerUnreachable, "TLS connection to " + where +
                                                 " refused: the server's key is not the pinned RA-TLS key "
                                                 "(--ratls-pin); nothing was sent");
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_INVALIDCERTSTATUS:
      throw Error(codes::kServerUnreachable, "TLS connection to " + where + " failed: " + detail);
    case CURLE_OPERATION_TIMEDOUT: {
      curl_off_t connected_us = 0;
      curl_easy_getinfo(curl.get(), CURLINFO_CONNECT_TIME_T, &connected_us);
      if (connected_us == 0)
        throw Error(codes::kServerUnreachable, "timed out connecting to the server at " + where);
      throw ServerError(0, "", "the server at " + where + " did not answer in time");
    }
    default:
      throw ServerError(0, "", "the connection to the server at " + where + " failed: " + detail);
  }
}

std::string HttpResponse::header(std::string_view name) const {
  const std::string key = lowercase(name);
  for (const auto& [k, v] : headers)
    if (k == key) return v;
  return "";
}

HttpClient::HttpClient(ClientOptions opts) : opts_(std::move(opts)) {
  transport_ = std::make_unique<Transport>(
      Transport{ServerRoute(opts_.url, !opts_.pinned_spki.empty(), opts_.connect_timeout_ms), make_curl_easy()});
  check_header_value(opts_.api_key);
  if (!opts_.pinned_spki.empty() && opts_.url.scheme() != "https" && !opts_.url.is_vsock()) {
    throw Error(codes::kInvalidArgument,
                "a pinned RA-TLS key (--ratls-pin) needs an https:// URL (the RA-TLS port) or a vsock:// URL");
  }
  if (opts_.url.is_vsock() && !opts_.ca_file.empty()) {
    throw Error(codes::kInvalidArgument, "--cacert does not apply to a vsock:// URL: TLS over vsock is RA-TLS, "
                                         "checked with --ratls-pin");
  }
  if (opts_.url.is_vsock() && opts_.pinned_spki.empty() && !opts_.url.is_local()) {
    throw Error(codes::kInvalidArgument,
                "plain HTTP over vsock is only allowed to CID 1 (this machine): traffic to " + opts_.url.display() +
                    " passes through the host; use RA-TLS (a3s-power-verify --ratls, then --ratls-pin)");
  }
  if (!opts_.ca_file.empty() && ::access(opts_.ca_file.c_str(), R_OK) != 0) {
    throw Error(codes::kInvalidArgument, "cannot read the CA certificate file (--cacert)");
  }
}

HttpClient::~HttpClient() = default;
HttpClient::HttpClient(HttpClient&&) noexcept = default;
HttpClient& HttpClient::operator=(HttpClient&&) noexcept = default;

HttpResponse HttpClient::get(std::string_view path) {
  CurlHeaders headers;
  headers.append("Accept: application/json");
  if (!opts_.api_key.empty()) headers.append("Authorization: Bearer " + opts_.api_key);
  transport_->prepare(opts_, path, headers, opts_.request_timeout_ms);
  CURL* c = transport_->curl.get();
  Transfer t;
  t.curl = c;
  t.body_limit = kMaxBodyBytes;
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  set_receivers(c, on_header, on_body, &t);
  const CURLcode rc = curl_easy_perform(c);
  if (t.failure) std::rethrow_exception(t.failure);
  if (t.body_too_large) throw ServerError(t.status, "", "the server's answer is too large");
  if (rc != CURLE_OK) transport_->throw_transport_error(opts_, rc, errbuf);
  read_response_head(t);  // an empty body never reached the write callback
  return HttpResponse{t.status, std::move(t.content_type), std::move(t.body), std::move(t.headers)};
}

nlohmann::json HttpClient::get_json(std::string_view path) {
  HttpResponse r = get(path);
  if (!is_success(r.status)) throw server_error_from_response(r.status, r.body);
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ServerError(r.status, "", "the server's answer is not valid JSON");
  return j;
}

StreamEnd HttpClient::post_stream(std::string_view path, const nlohmann::json& body,
                                  const std::function<bool(const SseEvent&)>& on_event,
                                  const std::atomic<bool>* cancel) {
  const std::string payload = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  CurlHeaders headers;
  headers.append("Content-Type: application/json");
  headers.append("Accept: text/event-stream");
  headers.append("Expect:");  // no 100-continue round trip
  if (!opts_.api_key.empty()) headers.append("Authorization: Bearer " + opts_.api_key);
  transport_->prepare(opts_, path, headers, 0L);
  CURL* c = transport_->curl.get();
  Transfer t;
  t.curl = c;
  t.streaming = true;
  t.body_limit = kMaxErrorBody;
  t.on_event = &on_event;
  t.cancel = cancel;
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  if (cancel != nullptr) {
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  }
  const CURLcode rc = curl_easy_perform(c);
  if (t.failure) std::rethrow_exception(t.failure);
  if (t.stopped) return StreamEnd::Stopped;
  if (t.cancelled) return StreamEnd::Cancelled;
  if (t.body_too_large) {
    if (!is_success(t.status)) throw server_error_from_response(t.status, "");
    throw ServerError(t.status, "", "the server did not answer with an event stream");
  }
  if (rc != CURLE_OK) transport_->throw_transport_error(opts_, rc, errbuf);
  read_response_head(t);
  if (!is_success(t.status)) throw server_error_from_response(t.status, t.body);
  if (!t.stream_body()) {
    nlohmann::json j = nlohmann::json::parse(t.body, nullptr, /*allow_exceptions=*/false);
    if (auto e = server_error_from_json(j, t.status)) throw std::move(*e);
    throw ServerError(t.status, "", "the server did not answer with an event stream");
  }
  return StreamEnd::Closed;
}

}  // namespace a3s::power::client
