// The A3S Power HTTP server: configuration → model registry, scheduler, API and listener.
//
//   Server s(cfg);                 // builds the registry from cfg.models (engine-backed)
//   uint16_t port = s.start();     // checks the bind policy, loads models, listens, runs I/O threads
//   s.handle_signals();            // SIGINT / SIGTERM → graceful shutdown
//   s.wait();                      // returns once shut down
//
// Graceful shutdown: stop accepting, reject queued generations (503), cancel running ones (within
// one decode step), let open responses finish, then stop the I/O threads.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/config.h"
#include "runtime/model_registry.h"

namespace a3s::power::server {

// True for loopback literals (127.0.0.0/8, ::1) and "localhost".
bool is_loopback_host(const std::string& host);

// True when every listener is reachable from this machine only: a loopback host and no vsock
// listener (vsock_port; the host and other VMs reach it).
bool loopback_only(const config::Config& cfg);

// Refuses (Error "config_error") to listen where others can connect — a non-loopback address, or
// vsock — without api_keys unless allow_unauthenticated is set, and — with tee_mode and tee_policy
// "strict" — a non-loopback address without RA-TLS (`ratls`), or vsock without RA-TLS (plain HTTP over
// vsock would reach the host, i.e. the operator): in strict mode prompts reach the server only over
// the attested channel.
void check_bind_policy(const config::Config& cfg);

// The address the plain HTTP listener binds: cfg.host, except in strict TEE mode with RA-TLS on a
// non-loopback host, where it is 127.0.0.1 (local health checks and tools) and cfg.host is served
// by the RA-TLS listener only.
std::string plain_listener_host(const config::Config& cfg);

// The registry for cfg.models: a model whose ref is an existing file or ends in ".gguf" is served
// from that path under its name (default: file name without ".gguf"); any other ref is a store
// name. Models load through the engine with cfg's threads, batch and context settings.
std::shared_ptr<runtime::ModelRegistry> make_registry(const config::Config& cfg);

class Server {
 public:
  explicit Server(config::Config cfg);
  Server(config::Config cfg, std::shared_ptr<runtime::ModelRegistry> registry);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loads the configured models, binds cfg.host:cfg.port (and, with cfg.ratls, issues the first RA-TLS
  // certificate and binds cfg.host:cfg.tls_port; with cfg.vsock_port, binds that AF_VSOCK port on any
  // CID, in RA-TLS when cfg.ratls) and starts serving. Returns the bound plain port.
  // Throws Error on a refused bind policy, a model that fails to load, or a bind failure.
  uint16_t start();

  // The vsock listener adopts `fd`, an already listening stream socket, instead of binding AF_VSOCK
  // (socket activation; tests, where an AF_UNIX socket stands in on kernels without vsock loopback).
  // Call before start(), with cfg.vsock_port set (the bind policy and RA-TLS apply as to vsock);
  // vsock_port() is then 0. Takes ownership of `fd`.
  void adopt_vsock_listener(int fd);

  // Begins a graceful shutdown (thread-safe, idempotent).
  void request_shutdown();
  // Blocks until the server has shut down.
  void wait();
  // SIGINT / SIGTERM begin a graceful shutdown (call after start()).
  void handle_signals();

  const config::Config& config() const;
  // The bound port of the RA-TLS listener (cfg.ratls, docs/ra-tls.md) once started; else nullopt.
  std::optional<uint16_t> tls_port() const;
  // The bound port of the vsock listener (cfg.vsock_port) once started; else nullopt. It speaks RA-TLS
  // when cfg.ratls is on, plain HTTP otherwise.
  std::optional<uint32_t> vsock_port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace a3s::power::server
