// `a3s-power serve`: the OpenAI-compatible HTTP server.
//
//   a3s-power serve [--config F] [--host H] [--port P] [--model NAME|PATH|NAME=PATH]...
//                   [--threads N] [--ctx-size N] [--model-key-file K] [--decrypt file|memory]
//
// Encrypted model files (docs/encrypted-weights.md) are decrypted into memory with the key from
// --model-key-file, else model_key_source, else $A3S_MODEL_KEY. With tee_mode = true the server
// attests (GET /v1/attestation, docs/tee.md): under tee_policy "strict" it refuses to start without
// attestation hardware; under "development" it falls back to clearly labelled simulated evidence.
// Pinned (model_hashes, model_hash blocks) or signed (model_signing_key) models are checked when
// they load (docs/model-integrity.md): a configured model that fails is a startup error (exit 2).
//
// Settings come from config::load (file < A3S_POWER_* environment < flags). Prints one line to
// stdout once the server accepts connections: "listening on http://HOST:PORT" (the real port when
// --port 0); with ratls = true it is preceded by "listening on https://HOST:PORT (RA-TLS)" for the
// RA-TLS listener (docs/ra-tls.md), and with vsock_port by "listening on vsock port PORT" (with
// " (RA-TLS)" when ratls = true). Logs go to stderr. SIGINT / SIGTERM shut down gracefully (exit 0).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "base/setting_names.h"
#include "config/config.h"
#include "base/log.h"
#include "base/process_hardening.h"
#include "server/server.h"

namespace a3s::power::cli {
namespace {

struct ServeArgs {
  std::string config_file, host;
  int port = -1, threads = -1, ctx_size = -1;
  std::string weights, memory_budget;
  std::vector<std::string> models;
  std::string model_key_file, decrypt;
  std::string chat_template_file;
};

// Diagnostics of the engine layers (base/log.h) go to the server's logger.
void engine_log_sink(LogLevel level, std::string_view message) {
  switch (level) {
    case LogLevel::Trace: spdlog::trace("{}", message); break;
    case LogLevel::Debug: spdlog::debug("{}", message); break;
    case LogLevel::Info: spdlog::info("{}", message); break;
    case LogLevel::Warn: spdlog::warn("{}", message); break;
    case LogLevel::Error: spdlog::error("{}", message); break;
    case LogLevel::Off: break;
  }
}

void configure_logging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("a3s-power");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %l %v");
  spdlog::set_level(spdlog::level::from_str(level));
  set_log_sink(engine_log_sink);
}

std::string url_host(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

void run_serve(const ServeArgs& a) {
  // A server's settings come from the configuration file, the environment and flags.
  set_setting_spelling(SettingSpelling::kConfigAndCli);
  config::CliOverrides o;
  if (!a.config_file.empty()) o.config_file = a.config_file;
  if (!a.host.empty()) o.host = a.host;
  if (a.port >= 0) o.port = a.port;
  if (a.threads >= 0) o.threads = a.threads;
  if (a.ctx_size >= 0) o.ctx_size = a.ctx_size;
  if (!a.weights.empty()) o.weights = a.weights;
  if (!a.memory_budget.empty()) {
    const auto b = parse_memory_size(a.memory_budget);
    if (!b) throw Error(codes::kInvalidArgument, "--memory-budget must be a size such as 256M or 2G");
    o.memory_budget_mb = (*b + (1u << 20) - 1) >> 20;
  }
  o.models = a.models;
  if (!a.decrypt.empty()) o.model_decrypt = a.decrypt;
  if (!a.model_key_file.empty()) o.model_key_file = a.model_key_file;
  if (!a.chat_template_file.empty()) o.chat_template_file = a.chat_template_file;
  config::Config cfg = config::load(o, config::process_env());
  // TEE mode: no core dump and no ptrace / /proc/PID/mem reader may ever see prompts, keys or weights.
  if (cfg.tee_mode) disable_core_dumps();
  configure_logging(cfg.log_level);
  // TEE mode: nothing the server holds (weights, KV cache, prompts, keys) may be swapped out.
  if (cfg.tee_mode) {
    if (const std::string why = lock_process_memory(); !why.empty()) {
      if (cfg.tee_policy == TeePolicy::kStrict) {
        throw Error(codes::kResourceExhausted, "tee_policy \"strict\" needs the process memory locked: " + why);
      }
      spdlog::warn("tee: memory is not locked ({}); allowed by tee_policy \"development\" only", why);
    }
  }
  server::check_bind_policy(cfg);

  server::Server srv(cfg);
  uint16_t port = srv.start();
  srv.handle_signals();
  if (const auto tls_port = srv.tls_port()) {
    std::printf("listening on https://%s:%u (RA-TLS)\n", url_host(cfg.host).c_str(), static_cast<unsigned>(*tls_port));
  }
  if (const auto vsock_port = srv.vsock_port()) {
    std::printf("listening on vsock port %u%s\n", static_cast<unsigned>(*vsock_port), cfg.ratls ? " (RA-TLS)" : "");
  }
  std::printf("listening on http://%s:%u\n", url_host(cfg.host).c_str(), static_cast<unsigned>(port));
  std::fflush(stdout);
  srv.wait();
  spdlog::info("stopped");
}

}  // namespace

void add_serve_command(CLI::App& root) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = root.add_subcommand("serve", "Serve models over the OpenAI-compatible HTTP API");
  cmd->add_option("--config", args->config_file, "HCL config file");
  cmd->add_option("--host", args->host, "Bind address (default 127.0.0.1)");
  cmd->add_option("--port", args->port, "Port (default 11434; 0 = ephemeral)")->check(CLI::Range(0, 65535));
  cmd->add_option("--model", args->models, "Model to serve: NAME (store), PATH (.gguf) or NAME=PATH")
      ->take_all();
  cmd->add_option("--threads", args->threads, "Engine threads (0 = physical cores)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--weights", args->weights, "Weight residency: auto, resident or stream")
      ->check(CLI::IsMember({"auto", "resident", "stream"}));
  cmd->add_option("--memory-budget", args->memory_budget, "Memory each model may use, e.g. 256M or 2G");
  cmd->add_option("--ctx-size", args->ctx_size, "Context per request in tokens (0 = model default)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--model-key-file", args->model_key_file,
                  "Key of encrypted models (64 hex digits; overrides model_key_source; default $A3S_MODEL_KEY)");
  cmd->add_option("--chat-template-file", args->chat_template_file,
                  "Jinja chat template used instead of each model's own (as in the GGUF)");
  cmd->add_option("--decrypt", args->decrypt, "Where encrypted models' plaintext lives: memory (default), file, stream")
      ->check(CLI::IsMember({"file", "memory", "stream"}));
  cmd->callback([args] { run_serve(*args); });
}

}  // namespace a3s::power::cli
