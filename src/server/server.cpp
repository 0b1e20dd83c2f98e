#include "server/server.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/thread_pool.hpp>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "model/encrypted/key_provider.h"
#include "server/api.h"
#include "server/attestation.h"
#include "server/http_server.h"
#include "server/ratls_identity.h"
#include "store/model_reference.h"
#include "runtime/engine_runtime.h"
#include "runtime/scheduler.h"

namespace a3s::power::server {

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  return !ec && addr.is_loopback();
}

bool loopback_only(const config::Config& cfg) { return is_loopback_host(cfg.host) && cfg.vsock_port < 0; }

void check_bind_policy(const config::Config& cfg) {
  const bool keys = !cfg.api_keys.empty() || !cfg.admin_api_keys.empty();
  if (!is_loopback_host(cfg.host) && !keys && !cfg.allow_unauthenticated) {
    throw Error(codes::kConfig, "refusing to listen on non-loopback address " + cfg.host +
                                    " without api_keys; configure api_keys or set allow_unauthenticated = true");
  }
  if (cfg.vsock_port >= 0 && !keys && !cfg.allow_unauthenticated) {
    throw Error(codes::kConfig, "refusing to listen on vsock (vsock_port) without api_keys: the host and other VMs "
                                "can connect to it; configure api_keys or set allow_unauthenticated = true");
  }
  const bool strict = cfg.tee_mode && cfg.tee_policy == TeePolicy::kStrict;
  if (strict && !is_loopback_host(cfg.host) && !cfg.ratls) {
    throw Error(codes::kConfig, "refusing to listen on non-loopback address " + cfg.host +
                                    " in strict TEE mode without RA-TLS: set ratls = true and tls_port, so that "
                                    "prompts arrive only over the attested channel");
  }
  if (strict && cfg.vsock_port >= 0 && !cfg.ratls) {
    throw Error(codes::kConfig, "refusing to listen on vsock (vsock_port) in strict TEE mode without RA-TLS: plain "
                                "HTTP over vsock reaches the host, i.e. the operator; set ratls = true (and "
                                "tls_port), and the vsock listener speaks RA-TLS");
  }
}

std::string plain_listener_host(const config::Config& cfg) {
  const bool strict = cfg.tee_mode && cfg.tee_policy == TeePolicy::kStrict;
  if (strict && cfg.ratls && !is_loopback_host(cfg.host)) return "127.0.0.1";
  return cfg.host;
}

std::shared_ptr<runtime::ModelRegistry> make_registry(const config::Config& cfg) {
  runtime::EngineRuntimeOptions eo;
  eo.n_threads = cfg.threads;
  eo.n_batch = cfg.batch_size;
  eo.n_ctx = cfg.ctx_size;
  eo.n_parallel = cfg.max_concurrent_requests;
  eo.weights = cfg.weights;
  eo.memory_budget = cfg.memory_budget_mb * 1024 * 1024;
  eo.kv_cache_bytes = cfg.kv_cache_mb * 1024 * 1024;
  eo.chat_template_fallback = cfg.chat_template_fallback;
  eo.decrypt.mode = cfg.model_decrypt;
  if (!cfg.model_key_source.file.empty()) {
    eo.decrypt.key = crypto::file_key_provider(cfg.model_key_source.file);
  } else if (!cfg.model_key_source.env.empty()) {
    eo.decrypt.key = crypto::env_key_provider(cfg.model_key_source.env);
  }
  // Model integrity (docs/model-integrity.md): a pin per served name, one signing key for all. In TEE
  // mode every model is measured from the bytes it is served from (the attestation claims carry it).
  eo.integrity.measure = cfg.tee_mode;
  if (cfg.model_signing_key) eo.integrity.signing_key = *cfg.model_signing_key;
  // A model's own chat_template_file, else the server's (config::Config::chat_template).
  std::map<std::string, std::string> templates;
  for (const auto& spec : cfg.models) {
    if (!spec.chat_template.empty()) {
      templates[spec.name.empty() ? (store::is_path_reference(spec.ref) ? store::default_model_name(spec.ref) : spec.ref)
                                  : spec.name] = spec.chat_template;
    }
  }
  eo.chat_template = cfg.chat_template;
  auto loader = [eo, pins = cfg.model_hashes, templates](const std::string& name, const std::string& path) {
    runtime::EngineRuntimeOptions o = eo;
    if (auto it = pins.find(name); it != pins.end()) o.integrity.pin = it->second;
    if (auto it = templates.find(name); it != templates.end()) o.chat_template = it->second;
    return runtime::load_engine_runtime(name, path, o);
  };
  std::shared_ptr<store::Store> st;
  if (!cfg.home.empty()) st = std::make_shared<store::Store>(cfg.home);
  auto reg = std::make_shared<runtime::ModelRegistry>(loader, st, cfg.serve_store);
  reg->set_load_failure_log([](const std::string& what) { spdlog::warn("{}", what); });
  for (const auto& spec : cfg.models) {
    if (store::is_path_reference(spec.ref)) {
      reg->add_path(spec.name.empty() ? store::default_model_name(spec.ref) : spec.name, spec.ref);
    } else {
      reg->add_store(spec.name.empty() ? spec.ref : spec.name, spec.ref);
    }
  }
  return reg;
}

struct Server::Impl {
  config::Config cfg;
  std::shared_ptr<runtime::ModelRegistry> registry;
  runtime::Scheduler scheduler;
  asio::thread_pool blocking{2};
  Api api;
  std::mutex mu;
  std::optional<std::thread> shutdown_thread;
  std::vector<std::thread> io_threads;
  std::atomic<bool> shutting_down{false};
  bool started = false;
  // Declared last: destroyed first, while everything its pending handlers reference is alive.
  asio::io_context ioc;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  HttpServer http;
  // RA-TLS (cfg.ratls): the certificate source outlives the TLS listener that uses it.
  std::shared_ptr<RatlsIdentity> ratls;
  std::optional<HttpServer> https;
  uint16_t tls_port = 0;
  // vsock (cfg.vsock_port): RA-TLS with the same identity when cfg.ratls, else plain HTTP.
  std::optional<HttpServer> vsock;
  uint32_t vsock_port = 0;
  int adopted_vsock_fd = -1;  // adopt_vsock_listener
  std::optional<asio::signal_set> signals;

  static runtime::SchedulerOptions scheduler_options(const config::Config& c) {
    runtime::SchedulerOptions o;
    o.slots = c.max_concurrent_requests;
    o.max_queue = c.max_queue;
    o.queue_timeout = std::chrono::milliseconds(static_cast<int64_t>(c.queue_timeout_seconds * 1000.0));
    return o;
  }
  static HttpLimits limits(const config::Config& c) {
    HttpLimits l;
    l.max_body_bytes = c.max_body_bytes;
    return l;
  }

  Impl(config::Config c, std::shared_ptr<runtime::ModelRegistry> r)
      : cfg(std::move(c)),
        registry(std::move(r)),
        scheduler(scheduler_options(cfg)),
        api(cfg, registry, scheduler, blocking),
        ioc(4),
        http(ioc, api, limits(cfg)) {}

  void shutdown_sequence() {
    spdlog::info("shutting down: no new connections, cancelling generations");
    api.set_stopping();
    http.stop_accepting();
    if (https) https->stop_accepting();
    if (vsock) vsock->stop_accepting();
    scheduler.shutdown();  // rejects queued jobs, cancels running ones, joins the workers
    // Let open exchanges write their last bytes (bounded).
    const auto active = [this] {
      return http.active_exchanges() + (https ? https->active_exchanges() : 0) +
             (vsock ? vsock->active_exchanges() : 0);
    };
    for (int i = 0; i < 500 && active() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    work.reset();
    ioc.stop();
  }
};

Server::Server(config::Config cfg) {
  auto reg = make_registry(cfg);
  impl_ = std::make_unique<Impl>(std::move(cfg), std::move(reg));
}

Server::Server(config::Config cfg, std::shared_ptr<runtime::ModelRegistry> registry)
    : impl_(std::make_unique<Impl>(std::move(cfg), std::move(registry))) {}

Server::~Server() {
  if (impl_->started) {
    request_shutdown();
    wait();
  }
  if (impl_->adopted_vsock_fd >= 0) ::close(impl_->adopted_vsock_fd);
}

void Server::adopt_vsock_listener(int fd) {
  if (impl_->adopted_vsock_fd >= 0) ::close(impl_->adopted_vsock_fd);
  impl_->adopted_vsock_fd = fd;
}

const config::Config& Server::config() const { return impl_->cfg; }

std::optional<uint16_t> Server::tls_port() const {
  if (!impl_->https) return std::nullopt;
  return impl_->tls_port;
}

std::optional<uint32_t> Server::vsock_port() const {
  if (!impl_->vsock) return std::nullopt;
  return impl_->vsock_port;
}

namespace {
// "2 API key(s), 1 admin key(s)", "no authentication, loopback only", …: names counts, never keys.
std::string auth_state(const config::Config& cfg) {
  if (cfg.api_keys.empty() && cfg.admin_api_keys.empty()) {
    return loopback_only(cfg) ? "no authentication, loopback only" : "no authentication (allow_unauthenticated)";
  }
  return std::to_string(cfg.api_keys.size()) + " API key(s), " + std::to_string(cfg.admin_api_keys.size()) +
         " admin key(s)";
}

std::string served_models(const runtime::ModelRegistry& registry, bool serve_store) {
  std::string names;
  for (const auto& s : registry.list()) {
    if (!s.loaded) continue;
    if (!names.empty()) names += ", ";
    PrintableStyle style;
    style.max_bytes = 64;
    names += printable(s.name, style);
  }
  if (names.empty()) names = "none";
  return names + (serve_store ? "; store models on demand" : "; store models only when configured or pulled");
}
}  // namespace

uint16_t Server::start() {
  for (const std::string& w : impl_->cfg.warnings) spdlog::warn("config: {}", w);
  check_bind_policy(impl_->cfg);
  std::shared_ptr<Attestor> attestor;
  if (impl_->cfg.tee_mode) {
    // Before the models load: a strict server without attestation hardware stops here.
    attestor = std::make_shared<Attestor>(impl_->cfg);
    spdlog::info("tee: {} evidence from {} (policy {}{})", attestor->tee_type(), attestor->provider_name(),
                 to_string(attestor->policy()), attestor->verifiable() ? "" : ", not remotely verifiable");
    impl_->api.set_attestor(attestor);
  }
  if (impl_->cfg.ratls && !attestor) throw Error(codes::kConfig, "'ratls' needs tee_mode = true");
  impl_->registry->load_all();
  if (impl_->cfg.port < 0 || impl_->cfg.port > 65535) throw Error(codes::kConfig, "port out of range");
  const std::string plain_host = plain_listener_host(impl_->cfg);
  if (plain_host != impl_->cfg.host) {
    spdlog::info("strict TEE mode: the plain HTTP listener binds {} only; {} is served over RA-TLS", plain_host,
                 impl_->cfg.host);
  }
  uint16_t port = impl_->http.listen(plain_host, static_cast<uint16_t>(impl_->cfg.port));
  if (impl_->cfg.ratls) {
    if (impl_->cfg.tls_port < 0 || impl_->cfg.tls_port > 65535) throw Error(codes::kConfig, "tls_port out of range");
    const auto lifetime = std::chrono::seconds(static_cast<int64_t>(impl_->cfg.ratls_cert_lifetime_seconds));
    impl_->ratls = std::make_shared<RatlsIdentity>(attestor, impl_->registry, lifetime);
    impl_->ratls->current();  // the first key and certificate, before anyone can connect
    impl_->https.emplace(impl_->ioc, impl_->api, Impl::limits(impl_->cfg), impl_->ratls.get());
    impl_->tls_port = impl_->https->listen(impl_->cfg.host, static_cast<uint16_t>(impl_->cfg.tls_port));
  }
  if (impl_->cfg.vsock_port >= 0) {
    if (impl_->cfg.vsock_port >= HttpServer::kVsockPortAny) throw Error(codes::kConfig, "vsock_port out of range");
    const uint32_t port = impl_->cfg.vsock_port == 0 ? HttpServer::kVsockPortAny
                                                     : static_cast<uint32_t>(impl_->cfg.vsock_port);
    impl_->vsock.emplace(impl_->ioc, impl_->api, Impl::limits(impl_->cfg), impl_->ratls.get());
    if (impl_->adopted_vsock_fd >= 0) {
      impl_->vsock->listen_fd(std::exchange(impl_->adopted_vsock_fd, -1));
    } else {
      impl_->vsock_port = impl_->vsock->listen_vsock(port);
    }
  }
  impl_->work.emplace(impl_->ioc.get_executor());
  impl_->http.start();
  if (impl_->https) impl_->https->start();
  if (impl_->vsock) impl_->vsock->start();
  int n_io = 2;
  for (int i = 0; i < n_io; ++i) impl_->io_threads.emplace_back([this] { impl_->ioc.run(); });
  impl_->started = true;
  spdlog::info("serving {} model(s) with {} generation slot(s): {}", impl_->cfg.models.size(),
               impl_->scheduler.slots(), served_models(*impl_->registry, impl_->cfg.serve_store));
  spdlog::info("auth: {}", auth_state(impl_->cfg));
  return port;
}

void Server::request_shutdown() {
  if (impl_->shutting_down.exchange(true)) return;
  std::lock_guard lk(impl_->mu);
  impl_->shutdown_thread.emplace([this] { impl_->shutdown_sequence(); });
}

void Server::wait() {
  for (auto& t : impl_->io_threads) {
    if (t.joinable()) t.join();
  }
  impl_->io_threads.clear();
  std::lock_guard lk(impl_->mu);
  if (impl_->shutdown_thread && impl_->shutdown_thread->joinable()) impl_->shutdown_thread->join();
  impl_->blocking.join();
  impl_->started = false;
}

void Server::handle_signals() {
  impl_->signals.emplace(impl_->ioc, SIGINT, SIGTERM);
  impl_->signals->async_wait([this](const boost::system::error_code& ec, int) {
    if (!ec) request_shutdown();
  });
}

}  // namespace a3s::power::server
