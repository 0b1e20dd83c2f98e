// Effective server configuration.
//
// Sources, lowest to highest precedence: HCL file (`--config F`, else $A3S_POWER_HOME/config.hcl if
// present) < `A3S_POWER_<KEY>` environment variables < CLI flags. Unknown keys, wrong types and
// out-of-range values are startup errors (Error "config_error", message "file:line:col: …").
// Keys that belong to features not built yet are parsed and then refused with "not supported yet".
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "a3s/power/settings.h"

namespace a3s::power::config {

struct ApiKey {
  std::string identity;                // block label, e.g. api_key "alice" { … }
  std::array<uint8_t, 32> sha256{};    // SHA-256 of the raw key (raw keys are hashed on load)
};

struct ModelSpec {
  std::string name;  // served name ("" → derived: file stem for paths, the store name otherwise)
  std::string ref;   // path to a .gguf file, or a store name
  // chat_template_file in the model's block: a Jinja chat template that replaces the GGUF's; load()
  // reads it into chat_template (at most kMaxChatTemplateBytes).
  std::string chat_template_file;
  std::string chat_template;
};

// The largest chat template file load() reads.
inline constexpr size_t kMaxChatTemplateBytes = 1 << 20;

// Where the server's model key comes from (docs/encrypted-weights.md). At most one is set; both
// empty → the A3S_MODEL_KEY environment variable.
struct ModelKeySource {
  std::string env;   // environment variable holding 64 hex digits
  std::string file;  // key file (as written by `a3s-power keygen`)
};

struct Config {
  std::string host = "127.0.0.1";      // bind address (loopback unless set explicitly)
  int port = 11434;                    // 1..65535 (0 = ephemeral, for tests)
  std::string home;                    // $A3S_POWER_HOME or ~/.a3s/power
  std::vector<ModelSpec> models;       // models to serve
  std::vector<ApiKey> api_keys;        // empty → no auth on /v1/* (unless admin_api_keys are set)
  // Keys of the admin scope (POST /v1/models/pull, DELETE /v1/models/{id}); they are valid API keys
  // too. None set: those routes answer 403, unless the server is loopback-only with no keys at all.
  std::vector<ApiKey> admin_api_keys;
  bool allow_unauthenticated = false;  // required to bind non-loopback without api_keys
  bool metrics_public = false;         // with api_keys: /metrics needs a key unless true
  bool health_public_details = false;  // with api_keys: /health without a key shows its details too
  // Whether every model of the store is served on demand. Unset: only when no model is configured
  // (models / --model); with configured models, only they (and models pulled through the admin route)
  // are served unless serve_store = true.
  std::optional<bool> serve_store_setting;
  bool serve_store = true;             // effective (derived by load())
  int max_concurrent_requests = 4;     // generation slots (1..1024)
  int max_queue = 64;                  // waiting requests beyond the slots (0..100000); full → 429
  double queue_timeout_seconds = 30;   // queue wait limit (> 0); exceeded → 503
  uint64_t max_body_bytes = 4u << 20;  // request body limit; larger → 413
  int ctx_size = 0;                    // per-request context (tokens); 0 → model default
  int threads = 0;                     // engine threads; 0 → physical cores
  int batch_size = 512;                // prefill batch (tokens)
  WeightsMode weights = WeightsMode::Auto;  // weight residency: auto | resident | stream
  uint64_t memory_budget_mb = 0;       // memory the model may use (MiB); 0 = no budget
  uint64_t kv_cache_mb = 0;            // KV block pool per model (MiB); 0 = the budget's share, else no limit
  // The keyed prompt-prefix cache (docs/prompt-cache.md): entries per authenticated identity
  // (1..1024), their lifetime since last use (1..86400 s), and the snapshot memory over all
  // identities (MiB; 0 = no cache: a request with prompt_cache_key answers prompt_cache_unsupported).
  int prompt_cache_max_entries = 1;
  double prompt_cache_ttl_seconds = 300;
  uint64_t prompt_cache_mb = 256;
  std::string chat_template_fallback;  // family for unrecognised templates ("" → error)
  // chat_template_file: the chat template every model without its own uses instead of its GGUF's
  // (as llama-server's --chat-template-file); load() reads it into chat_template.
  std::string chat_template_file;
  std::string chat_template;
  std::string log_level = "info";      // trace|debug|info|warn|error|off
  bool offline = false;                // A3S_POWER_OFFLINE=1: never download
  std::string pull_ca_file;            // CA certificates (PEM) that pulls trust instead of the system store
  bool tee_mode = false;               // TEE layer on: attestation, privacy policy (docs/tee.md);
                                       // `a3s-power decrypt` refuses to run when it is on
  TeePolicy tee_policy = TeePolicy::kStrict;
  std::string tee_device_root = "/";   // where /sys/kernel/config/tsm and /dev/* are looked up
  // Privacy policy (docs/privacy.md). The *_setting fields hold what the sources set (nullopt: not
  // set); load() derives the effective values below, which every consumer reads:
  //   redact_logs            = redact_logs_setting, else tee_mode
  //   suppress_token_metrics = suppress_token_metrics_setting || redact_logs
  std::optional<bool> redact_logs_setting;
  std::optional<bool> suppress_token_metrics_setting;
  bool redact_logs = false;             // effective: no user text in logs (length and salted hash at most)
  bool suppress_token_metrics = false;  // effective: token counts leave the process rounded to 10
  // Encrypted models: "memory" (locked RAM) | "file" (sealed memfd) | "stream" (per tensor, with
  // layer streaming).
  DecryptMode model_decrypt = DecryptMode::Memory;
  ModelKeySource model_key_source;     // encrypted models: where the key comes from
  // Model integrity (docs/model-integrity.md): the required SHA-256 of a model's plaintext GGUF
  // bytes per served name (`model_hashes` and `model_hash` blocks), and the Ed25519 public key whose
  // signature (`<model path>.sig`) every served model must carry.
  std::map<std::string, std::array<uint8_t, 32>> model_hashes;
  std::optional<std::array<uint8_t, 32>> model_signing_key;
  // RA-TLS (docs/ra-tls.md): a TLS listener on tls_port (0 = ephemeral; -1 = none) whose certificate
  // carries attestation evidence binding its key. load() requires ratls together with tee_mode and
  // tls_port (only RA-TLS certificates are served).
  int tls_port = -1;
  bool ratls = false;
  double ratls_cert_lifetime_seconds = 86400;  // key + certificate + evidence are renewed before this
  // vsock (AF_VSOCK, CID any): a listener on this port serving the same routes, in RA-TLS when ratls
  // is on (0 = ephemeral; -1 = none; 1..4294967294). The host can reach it: the bind policy treats it
  // as non-loopback, and in strict TEE mode it must be RA-TLS (server::check_bind_policy).
  int64_t vsock_port = -1;
  std::string config_file;             // the config file that was read ("" if none; not a setting)
  // What load() noticed but did not refuse (unknown A3S_POWER_* variables, …), for the startup log.
  // Each names a variable or key, never a value.
  std::vector<std::string> warnings;

  // Canonical JSON of every non-secret effective setting (for /health and config digests);
  // api keys appear as identities only.
  nlohmann::json effective_json() const;
};

struct CliOverrides {
  std::optional<std::string> config_file;
  std::optional<std::string> host;
  std::optional<int> port;
  std::vector<std::string> models;  // NAME | PATH | NAME=PATH
  std::optional<int> threads;
  std::optional<int> ctx_size;
  std::optional<std::string> weights;            // --weights (parsed by load(): an unknown value is an error)
  std::optional<uint64_t> memory_budget_mb;      // --memory-budget (rounded up to MiB)
  std::optional<std::string> model_decrypt;   // --decrypt
  std::optional<std::string> model_key_file;  // --model-key-file
  std::optional<std::string> chat_template_file;  // --chat-template-file
};

// Builds the effective configuration, then derives the effective privacy settings (see Config).
// tee_mode = true with tee_policy "strict" and redact_logs = false set explicitly is an error naming
// `redact_logs`; suppress_token_metrics = false set explicitly while redact_logs is effective is an
// error naming `suppress_token_metrics` (the two are never silently overridden). `env` is the process
// environment (injectable for tests). `ratls` without `tee_mode` or without `tls_port`, and `tls_port`
// without `ratls`, are errors naming the key.
// Throws Error(codes::kConfig) with file:line:col for file errors, the variable name for env errors
// and the flag for CLI errors; a given --config that does not exist is an error, a missing
// $A3S_POWER_HOME/config.hcl is not. Keys, types, ranges and precedence: docs/configuration.md.
Config load(const CliOverrides& cli, const std::map<std::string, std::string>& env);

// The process environment as a map (for load()).
std::map<std::string, std::string> process_env();

}  // namespace a3s::power::config
