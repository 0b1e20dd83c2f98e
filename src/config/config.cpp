#include "config/config.h"

#include <pwd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>
#include <string_view>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "config/config_error.h"
#include "config/hcl_parser.h"
#include "base/printable.h"
#include "base/small_file.h"
#include "config/schema.h"

extern char** environ;

namespace a3s::power::config {
namespace {

using Env = std::map<std::string, std::string>;
namespace fs = std::filesystem;

// Largest config file we read (a config is a few KiB; this bounds memory on a wrong path).
constexpr std::uintmax_t kMaxConfigBytes = 1u << 20;

// $A3S_POWER_HOME, else $HOME/.a3s/power, else the passwd home directory + /.a3s/power.
std::string default_home(const Env& env) {
  if (auto it = env.find("A3S_POWER_HOME"); it != env.end() && !it->second.empty()) return it->second;
  if (auto it = env.find("HOME"); it != env.end() && !it->second.empty()) return it->second + "/.a3s/power";
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir && pw->pw_dir[0]) {
    return std::string(pw->pw_dir) + "/.a3s/power";
  }
  throw Error(codes::kConfig, "cannot determine the home directory: set A3S_POWER_HOME or HOME");
}

// Reads a whole config file; errors name the path (paths are not secret).
std::string read_file(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw Error(codes::kConfig, path + ": config file not found");
  if (!fs::is_regular_file(status)) throw Error(codes::kConfig, path + ": config file is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) throw Error(codes::kConfig, path + ": cannot read config file");
  if (size > kMaxConfigBytes) throw Error(codes::kConfig, path + ": config file is larger than 1 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(codes::kConfig, path + ": cannot read config file: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(codes::kConfig, path + ": cannot read config file");
  return std::move(ss).str();
}

// Wipes a string's bytes (config text may hold raw API keys) before it is freed.
struct WipeOnExit {
  std::string& s;
  ~WipeOnExit() {
    if (!s.empty()) OPENSSL_cleanse(s.data(), s.size());
  }
};

void apply_config_file(Config& cfg, const std::string& path, const Env& env) {
  std::string text = read_file(path);
  WipeOnExit wipe_text{text};
  hcl::Body body = hcl::parse(text, path);
  try {
    apply_file(cfg, body, env);
  } catch (...) {
    hcl::wipe(body);
    throw;
  }
  hcl::wipe(body);
}

void apply_cli(Config& cfg, const CliOverrides& cli) {
  if (cli.host) set_host(cfg, *cli.host, hcl::SourcePos{"--host", 0, 0});
  if (cli.port) set_port(cfg, *cli.port, hcl::SourcePos{"--port", 0, 0});
  if (cli.threads) set_threads(cfg, *cli.threads, hcl::SourcePos{"--threads", 0, 0});
  if (cli.ctx_size) set_ctx_size(cfg, *cli.ctx_size, hcl::SourcePos{"--ctx-size", 0, 0});
  if (cli.weights) {
    const std::optional<WeightsMode> w = parse_weights_mode(*cli.weights);
    if (!w) throw Error(codes::kConfig, "--weights: must be one of auto, resident, stream");
    cfg.weights = *w;
  }
  if (cli.memory_budget_mb) cfg.memory_budget_mb = *cli.memory_budget_mb;
  if (cli.model_decrypt) {
    const std::optional<DecryptMode> m = parse_decrypt_mode(*cli.model_decrypt);
    if (!m) throw Error(codes::kConfig, "--decrypt: must be one of file, memory, stream");
    cfg.model_decrypt = *m;
  }
  if (cli.model_key_file) {
    if (cli.model_key_file->empty()) throw Error(codes::kConfig, "--model-key-file: empty path");
    cfg.model_key_source = ModelKeySource{"", *cli.model_key_file};
  }
  if (cli.chat_template_file) {
    if (cli.chat_template_file->empty()) throw Error(codes::kConfig, "--chat-template-file: empty path");
    cfg.chat_template_file = *cli.chat_template_file;
  }
  if (!cli.models.empty()) {
    std::vector<ModelSpec> models;
    for (const auto& m : cli.models) {
      ModelSpec spec = parse_model_spec(m, hcl::SourcePos{"--model", 0, 0});
      if (!spec.name.empty()) {
        for (const auto& other : models) {
          if (other.name == spec.name) {
            throw Error(codes::kConfig, "--model: duplicate model name '" + spec.name + "'");
          }
        }
      }
      models.push_back(std::move(spec));
    }
    cfg.models = std::move(models);
  }
}

// A chat template file's text: a regular file of at most kMaxChatTemplateBytes. `what` names the
// setting in errors (the path is the operator's, not request data).
std::string read_chat_template(const std::string& path, const std::string& what) {
  std::string text(kMaxChatTemplateBytes, '\0');
  const SmallFileRead r = read_small_file_into(path, text);
  switch (r.status) {
    case SmallFileRead::Status::kOk: break;
    case SmallFileRead::Status::kMissing: throw Error(codes::kConfig, what + ": " + path + " does not exist");
    case SmallFileRead::Status::kNotRegular: throw Error(codes::kConfig, what + ": " + path + " is not a regular file");
    case SmallFileRead::Status::kTooLarge:
      throw Error(codes::kConfig, what + ": " + path + " is larger than " + std::to_string(kMaxChatTemplateBytes >> 20) +
                                      " MiB");
    case SmallFileRead::Status::kError:
      throw Error(codes::kConfig, what + ": cannot read " + path + ": " + std::strerror(r.error));
  }
  text.resize(r.size);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw Error(codes::kConfig, what + ": " + path + " is empty");
  return text;
}

void read_chat_templates(Config& cfg) {
  if (!cfg.chat_template_file.empty()) cfg.chat_template = read_chat_template(cfg.chat_template_file, "chat_template_file");
  for (ModelSpec& m : cfg.models) {
    if (!m.chat_template_file.empty()) {
      m.chat_template = read_chat_template(m.chat_template_file, "model \"" + m.name + "\" chat_template_file");
    }
  }
}

std::string template_sha256(const std::string& text) {
  std::array<uint8_t, SHA256_DIGEST_LENGTH> d{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), d.data());
  return to_hex(d);
}

// Effective privacy settings from what the sources set (config.h).
void derive_privacy(Config& cfg) {
  if (cfg.tee_mode && cfg.tee_policy == TeePolicy::kStrict && cfg.redact_logs_setting == false) {
    throw Error(codes::kConfig,
                "'redact_logs' cannot be false when tee_mode is on with tee_policy \"strict\"");
  }
  cfg.redact_logs = cfg.redact_logs_setting.value_or(cfg.tee_mode);
  if (cfg.redact_logs && cfg.suppress_token_metrics_setting == false) {
    throw Error(codes::kConfig,
                "'suppress_token_metrics' cannot be false while log redaction is on (redact_logs or tee_mode)");
  }
  cfg.suppress_token_metrics = cfg.suppress_token_metrics_setting.value_or(false) || cfg.redact_logs;
}

// RA-TLS needs the TEE layer (its evidence) and a TLS port; a TLS port is served with RA-TLS
// certificates only.
void check_ratls(const Config& cfg) {
  if (cfg.ratls && !cfg.tee_mode)
    throw Error(codes::kConfig, "'ratls' needs tee_mode = true (the certificate carries attestation evidence)");
  if (cfg.ratls && cfg.tls_port < 0)
    throw Error(codes::kConfig, "'ratls' needs 'tls_port' (the port of the RA-TLS listener; 0 = ephemeral)");
  if (!cfg.ratls && cfg.tls_port >= 0)
    throw Error(codes::kConfig,
                "'tls_port' needs ratls = true: only RA-TLS certificates (generated in the TEE) are supported");
  if (cfg.tls_port > 0 && cfg.tls_port == cfg.port)
    throw Error(codes::kConfig, "'tls_port' and 'port' are both " + std::to_string(cfg.port) +
                                      ": the RA-TLS listener needs a port of its own");
}

// One key in both scopes would make an ordinary key an admin key by accident.
void check_admin_keys(const Config& cfg) {
  for (const auto& a : cfg.admin_api_keys) {
    for (const auto& k : cfg.api_keys) {
      if (a.sha256 == k.sha256) {
        throw Error(codes::kConfig, "admin_api_keys and api_keys hold the same key ('" + a.identity + "' and '" +
                                        k.identity + "'): an admin key is a valid API key already");
      }
    }
  }
}

// A3S_POWER_* variables that no setting reads: a typo would otherwise be silently ignored.
std::vector<std::string> environment_warnings(const Env& env) {
  std::set<std::string> known = {"A3S_POWER_ISA"};  // the kernels' instruction-set override
  for (const KeyInfo& k : attribute_keys()) {
    if (!k.env.empty()) known.insert(k.env);
  }
  std::vector<std::string> out;
  for (const auto& [name, value] : env) {
    if (!name.starts_with("A3S_POWER_") || known.count(name)) continue;
    PrintableStyle style;
    style.max_bytes = 64;
    const std::string shown = printable(name, style);
    if (name == "A3S_POWER_API_KEY") {
      out.push_back(shown + " is the clients' variable (a3s-power chat, a3s-power-verify) and is ignored by the "
                            "server; the server takes api_keys");
    } else {
      out.push_back("unknown variable " + shown + " is ignored (docs/configuration.md lists the variables)");
    }
  }
  return out;
}

}  // namespace

nlohmann::json Config::effective_json() const {
  // nlohmann::json objects keep keys sorted, so the dump is deterministic.
  nlohmann::json j = nlohmann::json::object();
  j["host"] = host;
  j["port"] = port;
  j["home"] = home;
  nlohmann::json ms = nlohmann::json::array();
  for (const auto& m : models) {
    nlohmann::json e = {{"name", m.name}, {"ref", m.ref}};
    // A template replacing the GGUF's changes every prompt: its digest is published with the path.
    if (!m.chat_template_file.empty()) {
      e["chat_template_file"] = m.chat_template_file;
      e["chat_template_sha256"] = template_sha256(m.chat_template);
    }
    ms.push_back(std::move(e));
  }
  j["models"] = std::move(ms);
  nlohmann::json ids = nlohmann::json::array();
  for (const auto& k : api_keys) ids.push_back(k.identity);
  j["api_keys"] = std::move(ids);
  nlohmann::json admin_ids = nlohmann::json::array();
  for (const auto& k : admin_api_keys) admin_ids.push_back(k.identity);
  j["admin_api_keys"] = std::move(admin_ids);
  j["allow_unauthenticated"] = allow_unauthenticated;
  j["metrics_public"] = metrics_public;
  j["health_public_details"] = health_public_details;
  j["serve_store"] = serve_store;
  j["max_concurrent_requests"] = max_concurrent_requests;
  j["max_queue"] = max_queue;
  j["queue_timeout_seconds"] = queue_timeout_seconds;
  j["max_body_bytes"] = max_body_bytes;
  j["ctx_size"] = ctx_size;
  j["threads"] = threads;
  j["batch_size"] = batch_size;
  j["weights"] = to_string(weights);
  j["memory_budget_mb"] = memory_budget_mb;
  j["kv_cache_mb"] = kv_cache_mb;
  j["prompt_cache_max_entries"] = prompt_cache_max_entries;
  j["prompt_cache_ttl_seconds"] = prompt_cache_ttl_seconds;
  j["prompt_cache_mb"] = prompt_cache_mb;
  j["chat_template_fallback"] = chat_template_fallback;
  j["chat_template_file"] = chat_template_file;
  j["chat_template_sha256"] = chat_template_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(template_sha256(chat_template));
  j["log_level"] = log_level;
  j["offline"] = offline;
  j["pull_ca_file"] = pull_ca_file;
  j["tee_mode"] = tee_mode;
  j["tee_policy"] = to_string(tee_policy);
  j["tee_device_root"] = tee_device_root;
  j["redact_logs"] = redact_logs;
  j["suppress_token_metrics"] = suppress_token_metrics;
  j["model_decrypt"] = to_string(model_decrypt);
  j["tls_port"] = tls_port;
  j["ratls"] = ratls;
  j["ratls_cert_lifetime_seconds"] = ratls_cert_lifetime_seconds;
  j["vsock_port"] = vsock_port;
  // Where the key comes from (a variable name or a path), never the key.
  if (!model_key_source.file.empty()) {
    j["model_key_source"] = {{"file", model_key_source.file}};
  } else {
    j["model_key_source"] = {{"env", model_key_source.env.empty() ? "A3S_MODEL_KEY" : model_key_source.env}};
  }
  // Pins and the signing key are public values (digests and a public key).
  nlohmann::json pins = nlohmann::json::object();
  for (const auto& [name, digest] : model_hashes) pins[name] = "sha256:" + to_hex(digest);
  j["model_hashes"] = std::move(pins);
  j["model_signing_key"] = model_signing_key ? nlohmann::json(to_hex(*model_signing_key)) : nlohmann::json(nullptr);
  return j;
}

Config load(const CliOverrides& cli, const Env& env) {
  Config cfg;
  cfg.home = default_home(env);

  std::string path;
  if (cli.config_file) {
    if (cli.config_file->empty()) throw Error(codes::kConfig, "--config: empty path");
    path = *cli.config_file;  // must exist: read_file reports a missing file
  } else {
    const std::string candidate = cfg.home + "/config.hcl";
    std::error_code ec;
    if (fs::exists(candidate, ec)) path = candidate;
  }
  if (!path.empty()) {
    apply_config_file(cfg, path, env);
    cfg.config_file = path;
  }
  apply_env(cfg, env);
  apply_cli(cfg, cli);
  read_chat_templates(cfg);
  derive_privacy(cfg);
  check_ratls(cfg);
  check_admin_keys(cfg);
  cfg.serve_store = cfg.serve_store_setting.value_or(cfg.models.empty());
  cfg.warnings = environment_warnings(env);
  return cfg;
}

std::map<std::string, std::string> process_env() {
  Env env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

}  // namespace a3s::power::config
