// POST /v1/models/pull {"model": REF, "sha256"?: HEX, "name"?: NAME}: pulls REF into the model
// store (store::Store::pull) on a blocking thread and streams its progress as SSE:
//   data: {"status":"downloading","completed":N,"total":M}
//   …
//   data: {"status":"success","model":NAME,"digest":"sha256:…","size":N}
// A failure before the first progress event is an ordinary JSON error response; after it, a final
// data: {"error":{…}} event. A client that disconnects aborts the pull (a partial download is kept
// by the store for resume).
#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>
#include <variant>

#include "base/build_info.h"
#include "server/api.h"
#include "server/api_error.h"
#include "server/async_queue.h"
#include "openai/openai_request.h"
#include "server/openai_response.h"

namespace a3s::power::server {

namespace {
struct PullProgress {
  store::Progress progress;
};
struct PullDone {
  store::Manifest manifest;
};
struct PullFailed {
  Error error;
};
using PullEvent = std::variant<PullProgress, PullDone, PullFailed>;

std::string string_field(const nlohmann::json& body, const char* key, bool required) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) {
    if (required) throw ApiError(codes::kInvalidRequest, std::string("'") + key + "' is required", key);
    return {};
  }
  if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
    throw ApiError(codes::kInvalidRequest, std::string("'") + key + "' must be a non-empty string", key);
  }
  return it->get<std::string>();
}
}  // namespace

asio::awaitable<void> Api::pull(Exchange& ex) {
  // A build without the HTTP client (the tee-minimal profile) downloads nothing: 501 not_built.
  if (!store::downloads_built()) throw not_built("POST /v1/models/pull", "built without libcurl");
  nlohmann::json body = parse_json_object(ex.request().body);
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (it.key() != "model" && it.key() != "sha256" && it.key() != "name") {
      throw ApiError(codes::kUnsupportedField, "the request has an unknown field");
    }
  }
  std::string ref = string_field(body, "model", true);
  store::PullOptions opts;
  opts.offline = cfg_.offline;
  opts.ca_file = cfg_.pull_ca_file;
  if (auto pin = string_field(body, "sha256", false); !pin.empty()) opts.sha256 = pin;
  if (auto name = string_field(body, "name", false); !name.empty()) opts.name = name;
  store::Store* st = registry_->store();
  if (!st) throw ApiError(codes::kServiceUnavailable, "the model store is not available");
  // Over HTTP only remote references over TLS are pulled: a local path would let a client probe the
  // server's files (existence, type, size) and copy them into the store, and plain http:// (even to
  // loopback) would let it make the server fetch its own or its neighbours' endpoints. Local files
  // go in with the CLI (`a3s-power pull PATH`).
  if (!ref.starts_with("https://") && !ref.starts_with("hf://")) {
    throw ApiError(ref.starts_with("http://") ? codes::kInvalidRequest : codes::kLocalPathRefused,
                   "the HTTP API pulls https:// URLs and hf:// references only; add local files with "
                   "the CLI (a3s-power pull PATH)",
                   "model");
  }

  auto queue = std::make_shared<AsyncQueue<PullEvent>>(ex.executor());
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  ex.watch_disconnect([cancel, queue] {
    cancel->store(true);
    queue->interrupt();
  });
  asio::post(blocking_, [st, ref, opts, queue, cancel] {
    try {
      store::Manifest m = st->pull(ref, opts, [&](const store::Progress& p) {
        if (cancel->load()) throw Error(codes::kCancelled, "pull cancelled by the client");
        queue->push(PullProgress{p});
      });
      queue->push(PullDone{std::move(m)});
    } catch (const Error& e) {
      queue->push(PullFailed{e});
    } catch (const std::exception&) {
      queue->push(PullFailed{Error(codes::kInternal, "pull failed")});
    }
  });

  bool streaming = false;
  for (;;) {
    std::optional<PullEvent> ev = co_await queue->pop();
    if (!ev) {
      ex.record().status = ex.record().status ? ex.record().status : 499;
      co_return;
    }
    if (auto* f = std::get_if<PullFailed>(&*ev)) {
      // I/O errors name the server's files (staging and store paths): the body says what failed only.
      if (f->error.kind() == codes::kIo) {
        spdlog::warn("model pull failed: {}", code_string(codes::kIo));
        f->error = Error(codes::kIo, "the download or the store write did not complete; pull again to resume");
      } else if (f->error.kind() == codes::kInvalidModel) {
        f->error = Error(codes::kInvalidModel, "the downloaded file is not a valid GGUF model");
      }
      if (!streaming) throw f->error;
      HttpResponse er = error_response(f->error);
      co_await ex.write_chunk(sse_event(std::string_view(er.body)));
      co_return;
    }
    if (!streaming) {
      streaming = true;
      if (!co_await begin_event_stream(ex)) {
        cancel->store(true);
        co_return;
      }
    }
    nlohmann::json j;
    bool done = false;
    if (auto* p = std::get_if<PullProgress>(&*ev)) {
      j = {{"status", p->progress.stage}, {"completed", p->progress.done}, {"total", p->progress.total}};
    } else if (auto* d = std::get_if<PullDone>(&*ev)) {
      registry_->add_pulled(d->manifest.name);  // a pulled model is served from now on
      j = {{"status", "success"},
           {"model", d->manifest.name},
           {"digest", d->manifest.digest},
           {"size", d->manifest.size},
           {"architecture", d->manifest.architecture},
           {"quantization", d->manifest.quantization}};
      done = true;
    }
    if (!co_await ex.write_chunk(sse_event(j))) {
      cancel->store(true);
      co_return;
    }
    if (done) {
      co_await ex.end_stream();
      co_return;
    }
  }
}

}  // namespace a3s::power::server
