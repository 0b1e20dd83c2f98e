#include "config/schema.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>

#include "config/api_key.h"
#include "config/config_error.h"

namespace a3s::power::config {
namespace {

using hcl::SourcePos;
using hcl::Value;
using Env = std::map<std::string, std::string>;

constexpr int64_t kGiB = int64_t{1} << 30;

// What a setter sees: the key as written (for messages) and the environment (for "~").
struct Ctx {
  const std::string& key;
  const Env& env;
};

using Apply = std::function<void(Config&, const Value&, const Ctx&)>;

struct Setting {
  KeyInfo info;
  std::string canonical;  // the setting this key sets (differs from info.name for aliases)
  Apply apply;            // empty for keys that are not supported yet
};

std::string quoted(const std::string& key) { return "'" + key + "'"; }

[[noreturn]] void type_error(const Value& v, const std::string& key, const std::string& expected) {
  std::string msg = quoted(key) + " must be " + expected;
  if (v.pos.line > 0) msg += std::string(", found ") + hcl::kind_name(v.kind);
  fail(v.pos, msg);
}

const std::string& as_string(const Value& v, const std::string& key) {
  if (v.kind != Value::Kind::String) type_error(v, key, "a string");
  return v.string;
}

const std::string& as_nonempty_string(const Value& v, const std::string& key) {
  const std::string& s = as_string(v, key);
  if (s.empty()) fail(v.pos, quoted(key) + " must not be empty");
  return s;
}

int64_t as_int(const Value& v, const std::string& key, int64_t lo, int64_t hi) {
  if (v.kind != Value::Kind::Int) type_error(v, key, "an integer");
  if (v.integer < lo || v.integer > hi) {
    fail(v.pos, quoted(key) + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
  }
  return v.integer;
}

double as_number(const Value& v, const std::string& key) {
  if (!v.is_number()) type_error(v, key, "a number");
  return v.number;
}

bool as_bool(const Value& v, const std::string& key) {
  if (v.kind != Value::Kind::Bool) type_error(v, key, "a boolean");
  return v.boolean;
}

const std::vector<Value>& as_string_list(const Value& v, const std::string& key) {
  if (v.kind != Value::Kind::List) type_error(v, key, "a list of strings");
  for (const auto& item : v.list) {
    if (item.kind != Value::Kind::String) type_error(item, key, "a list of strings");
  }
  return v.list;
}

// Type check only (for keys that are not supported yet).
void check_type(const Value& v, const std::string& key, KeyType type) {
  switch (type) {
    case KeyType::String: as_string(v, key); return;
    case KeyType::Int: as_int(v, key, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()); return;
    case KeyType::Number: as_number(v, key); return;
    case KeyType::Bool: as_bool(v, key); return;
    case KeyType::StringList: as_string_list(v, key); return;
    case KeyType::Object:
      if (v.kind != Value::Kind::Object) type_error(v, key, "an object");
      return;
  }
}

bool valid_identity(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '@';
  });
}

void set_host_impl(Config& cfg, const std::string& host, const SourcePos& where, const std::string& key) {
  const bool ok = !host.empty() && host.size() <= 253 &&
                  std::none_of(host.begin(), host.end(), [](char c) {
                    return std::isspace(static_cast<unsigned char>(c)) ||
                           std::iscntrl(static_cast<unsigned char>(c));
                  });
  if (!ok) fail(where, quoted(key) + " must be a non-empty address without spaces");
  cfg.host = host;
}

std::string expand_home(const std::string& path, const SourcePos& where, const std::string& key,
                        const Env& env) {
  if (path != "~" && path.rfind("~/", 0) != 0) return path;
  auto it = env.find("HOME");
  if (it == env.end() || it->second.empty()) fail(where, quoted(key) + " uses '~' but HOME is not set");
  return it->second + path.substr(1);
}

// Raw keys from a list: identities key1, key2, ... in order.
std::vector<ApiKey> raw_key_list(const Value& v, const std::string& key, const std::string& identity_prefix = "key") {
  std::vector<ApiKey> keys;
  for (const auto& item : as_string_list(v, key)) {
    if (item.string.empty()) fail(item.pos, "an API key must not be empty");
    ApiKey k{identity_prefix + std::to_string(keys.size() + 1), hash_raw_key(item.string)};
    for (const auto& other : keys) {
      if (other.sha256 == k.sha256) fail(item.pos, "duplicate API key (same key as '" + other.identity + "')");
    }
    keys.push_back(k);
  }
  return keys;
}

std::vector<ModelSpec> model_list(const Value& v, const std::string& key) {
  std::vector<ModelSpec> models;
  for (const auto& item : as_string_list(v, key)) {
    ModelSpec m = parse_model_spec(item.string, item.pos);
    if (!m.name.empty()) {
      for (const auto& other : models) {
        if (other.name == m.name) fail(item.pos, "duplicate model name '" + m.name + "'");
      }
    }
    models.push_back(std::move(m));
  }
  return models;
}

bool valid_env_name(const std::string& s) {
  if (s.empty() || s.size() > 128 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// model_key_source = { env = "VAR" } | { file = "PATH" }
ModelKeySource key_source(const Value& v, const Ctx& x) {
  const std::string shape = quoted(x.key) + " must be { env = \"VARIABLE\" } or { file = \"PATH\" }";
  if (v.kind != Value::Kind::Object) type_error(v, x.key, "an object");
  if (v.object.size() != 1) fail(v.pos, shape);
  const hcl::ObjectItem& item = v.object.front();
  if (item.key != "env" && item.key != "file") fail(item.key_pos, shape);
  const std::string& text = as_nonempty_string(item.value, x.key + "." + item.key);
  ModelKeySource ks;
  if (item.key == "env") {
    if (!valid_env_name(text)) fail(item.value.pos, quoted(x.key + ".env") + " must be a variable name (letters, digits, '_')");
    ks.env = text;
  } else {
    ks.file = expand_home(text, item.value.pos, x.key + ".file", x.env);
  }
  return ks;
}

// ---- model integrity ----

constexpr const char* kDigestShape = "must be \"sha256:\" followed by 64 hex digits";

// A model pin: exactly "sha256:" + 64 hex digits.
std::array<uint8_t, 32> pin_digest(const Value& v, const std::string& what) {
  const std::string& text = as_string(v, what);
  auto d = text.rfind("sha256:", 0) == 0 ? parse_key_digest(text) : std::nullopt;
  if (!d) fail(v.pos, quoted(what) + " " + kDigestShape);
  return *d;
}

void add_pin(Config& c, const std::string& name, const std::array<uint8_t, 32>& digest, const SourcePos& where) {
  if (name.empty()) fail(where, "a pinned model name must not be empty");
  auto [it, inserted] = c.model_hashes.emplace(name, digest);
  if (!inserted && it->second != digest) {
    fail(where, "model '" + name + "' is pinned twice with different digests");
  }
}

// model_hashes = { "<name>" = "sha256:<hex>", ... }
void model_hashes_object(Config& c, const Value& v, const Ctx& x) {
  if (v.kind != Value::Kind::Object) type_error(v, x.key, "an object");
  for (const hcl::ObjectItem& item : v.object) {
    add_pin(c, item.key, pin_digest(item.value, x.key + "." + item.key), item.key_pos);
  }
}

// model_signing_key = "<64 hex digits>" (an Ed25519 public key)
std::array<uint8_t, 32> signing_key(const Value& v, const std::string& key) {
  const std::string& text = as_string(v, key);
  std::array<uint8_t, 32> k{};
  bool ok = text.size() == 64;
  for (size_t i = 0; ok && i < 32; ++i) {
    unsigned byte = 0;
    auto [p, ec] = std::from_chars(text.data() + 2 * i, text.data() + 2 * i + 2, byte, 16);
    ok = ec == std::errc() && p == text.data() + 2 * i + 2;
    k[i] = static_cast<uint8_t>(byte);
  }
  if (!ok) fail(v.pos, quoted(key) + " must be an Ed25519 public key: 64 hex digits");
  return k;
}

// A string that must be one of `choices`; the error lists them, the empty string as "".
const std::string& as_choice(const Value& v, const std::string& key,
                             const std::vector<std::string>& choices) {
  const std::string& s = as_string(v, key);
  if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
    std::string list;
    for (size_t i = 0; i < choices.size(); ++i)
      list += (i == 0 ? "" : ", ") + (choices[i].empty() ? "\"\"" : choices[i]);
    fail(v.pos, quoted(key) + " must be one of " + list);
  }
  return s;
}

const std::vector<std::string>& template_families() {
  static const std::vector<std::string> f = {"",        "chatml", "llama2", "llama3", "mistral",
                                             "gemma",   "phi3",   "deepseek", "plain"};
  return f;
}

const std::vector<std::string>& log_levels() {
  static const std::vector<std::string> l = {"trace", "debug", "info", "warn", "error", "off"};
  return l;
}

std::string env_name_of(const std::string& key) {
  std::string e = "A3S_POWER_";
  for (char c : key) e += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return e;
}

const std::vector<Setting>& settings() {
  static const std::vector<Setting> table = [] {
    std::vector<Setting> s;
    auto add = [&s](const std::string& name, KeyType type, Apply apply, std::string canonical = "") {
      const bool supported = static_cast<bool>(apply);
      s.push_back(Setting{KeyInfo{name, env_name_of(name), type, supported},
                          canonical.empty() ? name : canonical, std::move(apply)});
    };
    // A boolean key stored as is in one field of Config (a bool or an optional<bool>).
    auto add_bool = [&add](const std::string& name, auto Config::*field) {
      add(name, KeyType::Bool,
          [field](Config& c, const Value& v, const Ctx& x) { c.*field = as_bool(v, x.key); });
    };
    // A string key that must be one of `choices`, stored as is in one field of Config.
    auto add_choice = [&add](const std::string& name, std::string Config::*field,
                             std::vector<std::string> choices) {
      add(name, KeyType::String,
          [field, choices = std::move(choices)](Config& c, const Value& v, const Ctx& x) {
            c.*field = as_choice(v, x.key, choices);
          });
    };
    // An enumerated key (a3s/power/settings.h): one of `choices`, parsed into its enum.
    auto add_enum = [&add](const std::string& name, auto Config::*field, auto parse, std::vector<std::string> choices) {
      add(name, KeyType::String,
          [field, parse, choices = std::move(choices)](Config& c, const Value& v, const Ctx& x) {
            const auto value = parse(as_choice(v, x.key, choices));
            if (!value) fail(v.pos, quoted(x.key) + " has a value the server does not know");
            c.*field = *value;
          });
    };
    auto host = [](Config& c, const Value& v, const Ctx& x) {
      set_host_impl(c, as_string(v, x.key), v.pos, x.key);
    };
    add("host", KeyType::String, host);
    add("bind", KeyType::String, host, "host");
    add("port", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.port = static_cast<int>(as_int(v, x.key, 0, 65535));
    });
    add("home", KeyType::String, [](Config& c, const Value& v, const Ctx& x) {
      c.home = expand_home(as_nonempty_string(v, x.key), v.pos, x.key, x.env);
    });
    add("models", KeyType::StringList, [](Config& c, const Value& v, const Ctx& x) {
      c.models = model_list(v, x.key);
    });
    add("api_keys", KeyType::StringList, [](Config& c, const Value& v, const Ctx& x) {
      c.api_keys = raw_key_list(v, x.key);
    });
    add("admin_api_keys", KeyType::StringList, [](Config& c, const Value& v, const Ctx& x) {
      c.admin_api_keys = raw_key_list(v, x.key, "admin");
    });
    add_bool("allow_unauthenticated", &Config::allow_unauthenticated);
    add_bool("metrics_public", &Config::metrics_public);
    add_bool("health_public_details", &Config::health_public_details);
    add_bool("serve_store", &Config::serve_store_setting);
    add("max_concurrent_requests", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.max_concurrent_requests = static_cast<int>(as_int(v, x.key, 1, 1024));
    });
    add("max_queue", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.max_queue = static_cast<int>(as_int(v, x.key, 0, 100000));
    });
    auto queue_timeout = [](Config& c, const Value& v, const Ctx& x) {
      const double t = as_number(v, x.key);
      if (!(t > 0.0 && t <= 3600.0)) fail(v.pos, quoted(x.key) + " is out of range (> 0 and <= 3600 seconds)");
      c.queue_timeout_seconds = t;
    };
    add("queue_timeout", KeyType::Number, queue_timeout);
    add("queue_timeout_seconds", KeyType::Number, queue_timeout, "queue_timeout");
    add("max_body_bytes", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.max_body_bytes = static_cast<uint64_t>(as_int(v, x.key, 1024, kGiB));
    });
    add("ctx_size", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      set_ctx_size(c, as_int(v, x.key, 0, std::numeric_limits<int>::max()), v.pos);
    });
    add("threads", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.threads = static_cast<int>(as_int(v, x.key, 0, 1024));
    });
    add("batch_size", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.batch_size = static_cast<int>(as_int(v, x.key, 1, 65536));
    });
    add_enum("weights", &Config::weights, parse_weights_mode, {"auto", "resident", "stream"});
    add("memory_budget_mb", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.memory_budget_mb = static_cast<uint64_t>(as_int(v, x.key, 0, 1 << 24));
    });
    add("kv_cache_mb", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.kv_cache_mb = static_cast<uint64_t>(as_int(v, x.key, 0, 1 << 24));
    });
    add_choice("chat_template_fallback", &Config::chat_template_fallback, template_families());
    add("chat_template_file", KeyType::String, [](Config& c, const Value& v, const Ctx& x) {
      c.chat_template_file = as_nonempty_string(v, x.key);
    });
    add_choice("log_level", &Config::log_level, log_levels());
    add_bool("offline", &Config::offline);
    add("pull_ca_file", KeyType::String, [](Config& c, const Value& v, const Ctx& x) {
      c.pull_ca_file = as_nonempty_string(v, x.key);
    });

    add_bool("tee_mode", &Config::tee_mode);
    // As configured; config::load derives the effective redact_logs / suppress_token_metrics.
    add_bool("redact_logs", &Config::redact_logs_setting);
    add_bool("suppress_token_metrics", &Config::suppress_token_metrics_setting);
    add_enum("tee_policy", &Config::tee_policy, parse_tee_policy, {"strict", "development"});
    add("tee_device_root", KeyType::String, [](Config& c, const Value& v, const Ctx& x) {
      const std::string& r = as_string(v, x.key);
      if (r.empty() || r.front() != '/') fail(v.pos, quoted(x.key) + " must be an absolute path");
      c.tee_device_root = r;
    });
    add_enum("model_decrypt", &Config::model_decrypt, parse_decrypt_mode, {"file", "memory", "stream"});
    add("in_memory_decrypt", KeyType::Bool, [](Config& c, const Value& v, const Ctx& x) {
      c.model_decrypt = as_bool(v, x.key) ? DecryptMode::Memory : DecryptMode::File;
    }, "model_decrypt");
    add("model_key_source", KeyType::Object, [](Config& c, const Value& v, const Ctx& x) {
      c.model_key_source = key_source(v, x);
    });
    add("model_hashes", KeyType::Object, model_hashes_object);
    add("model_signing_key", KeyType::String, [](Config& c, const Value& v, const Ctx& x) {
      c.model_signing_key = signing_key(v, x.key);
    });

    // RA-TLS (docs/ra-tls.md); the combinations are checked once every source is applied (config.cpp).
    add("tls_port", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.tls_port = static_cast<int>(as_int(v, x.key, 0, 65535));
    });
    add_bool("ratls", &Config::ratls);
    // vsock (docs/configuration.md): 0xFFFFFFFF is VMADDR_PORT_ANY, written 0 here as for the TCP ports.
    add("vsock_port", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.vsock_port = as_int(v, x.key, 0, 4294967294LL);
    });
    add("ratls_cert_lifetime_seconds", KeyType::Number, [](Config& c, const Value& v, const Ctx& x) {
      const double t = as_number(v, x.key);
      if (!(t >= 1.0 && t <= 366.0 * 86400.0))
        fail(v.pos, quoted(x.key) + " is out of range (>= 1 and <= 31622400 seconds)");
      c.ratls_cert_lifetime_seconds = t;
    });

    // The keyed prompt-prefix cache (docs/prompt-cache.md).
    add("prompt_cache_max_entries", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.prompt_cache_max_entries = static_cast<int>(as_int(v, x.key, 1, 1024));
    });
    add("prompt_cache_ttl_seconds", KeyType::Number, [](Config& c, const Value& v, const Ctx& x) {
      const double t = as_number(v, x.key);
      if (!(t >= 1.0 && t <= 86400.0)) fail(v.pos, quoted(x.key) + " is out of range (>= 1 and <= 86400 seconds)");
      c.prompt_cache_ttl_seconds = t;
    });
    add("prompt_cache_mb", KeyType::Int, [](Config& c, const Value& v, const Ctx& x) {
      c.prompt_cache_mb = static_cast<uint64_t>(as_int(v, x.key, 0, 1 << 20));
    });

    // Features not built yet: parsed and type-checked, then refused.
    add("kv_cache_type", KeyType::String, nullptr);
    // An object cannot come from an environment variable.
    for (auto& k : s) {
      if (k.info.type == KeyType::Object) k.info.env.clear();
    }
    return s;
  }();
  return table;
}

const Setting* find_setting(const std::string& name) {
  for (const auto& s : settings()) {
    if (s.info.name == name) return &s;
  }
  return nullptr;
}

std::string line_col(const SourcePos& p) {
  return std::to_string(p.line) + ":" + std::to_string(p.col);
}

// ---- blocks ----

void reject_nested_blocks(const hcl::Block& b) {
  if (!b.body.blocks.empty()) {
    const auto& n = b.body.blocks.front();
    fail(n.pos, "unknown block '" + n.type + "' in block '" + b.type + "'");
  }
}

void need_one_label(const hcl::Block& b, const std::string& what) {
  if (b.labels.size() != 1) fail(b.pos, "block '" + b.type + "' needs exactly one label (" + what + ")");
}

ModelSpec model_block(const hcl::Block& b) {
  need_one_label(b, "the served model name");
  reject_nested_blocks(b);
  if (b.labels[0].empty()) fail(b.label_pos[0], "a model name must not be empty");
  const Value* path = nullptr;
  std::string chat_template_file;
  for (const auto& a : b.body.attributes) {
    if (a.name == "path") {
      path = &a.value;
    } else if (a.name == "chat_template_file") {
      chat_template_file = as_nonempty_string(a.value, "chat_template_file");
    } else {
      fail(a.pos, "unknown key '" + a.name + "' in block 'model'");
    }
  }
  if (!path) fail(b.pos, "block 'model' needs 'path'");
  ModelSpec m{b.labels[0], as_nonempty_string(*path, "path"), {}, {}};
  m.chat_template_file = std::move(chat_template_file);
  return m;
}

// model_hash "<name>" { digest = "sha256:<hex>" }
void model_hash_block(Config& c, const hcl::Block& b) {
  need_one_label(b, "the served model name");
  reject_nested_blocks(b);
  const hcl::Attribute* digest = nullptr;
  for (const auto& a : b.body.attributes) {
    if (a.name != "digest") fail(a.pos, "unknown key '" + a.name + "' in block 'model_hash'");
    digest = &a;
  }
  if (!digest) fail(b.pos, "block 'model_hash' needs 'digest'");
  add_pin(c, b.labels[0], pin_digest(digest->value, "digest"), b.label_pos[0]);
}

ApiKey api_key_block(const hcl::Block& b) {
  need_one_label(b, "the key's identity");
  reject_nested_blocks(b);
  if (!valid_identity(b.labels[0])) {
    fail(b.label_pos[0], "an API key identity must be 1..64 letters, digits, '.', '_', '-' or '@'");
  }
  const hcl::Attribute* hash = nullptr;
  const hcl::Attribute* raw = nullptr;
  for (const auto& a : b.body.attributes) {
    if (a.name == "hash") {
      hash = &a;
    } else if (a.name == "key") {
      raw = &a;
    } else {
      fail(a.pos, "unknown key '" + a.name + "' in block 'api_key'");
    }
  }
  if (hash && raw) fail(raw->pos, "block 'api_key' takes 'hash' or 'key', not both");
  if (!hash && !raw) fail(b.pos, "block 'api_key' needs 'hash' or 'key'");
  ApiKey k;
  k.identity = b.labels[0];
  if (hash) {
    auto d = parse_key_digest(as_string(hash->value, "hash"));
    if (!d) fail(hash->value.pos, "'hash' must be \"sha256:\" followed by 64 hex digits");
    k.sha256 = *d;
  } else {
    const std::string& key = as_string(raw->value, "key");
    if (key.empty()) fail(raw->value.pos, "an API key must not be empty");
    k.sha256 = hash_raw_key(key);
  }
  return k;
}

// ---- environment values ----

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// Converts a variable's text to a Value of the key's type (same rules as file values afterwards).
Value env_value(const std::string& text, const Setting& s, const std::string& var) {
  Value v;
  v.pos = SourcePos{var, 0, 0};
  const std::string& key = s.info.name;
  switch (s.info.type) {
    case KeyType::String:
      v.kind = Value::Kind::String;
      v.string = text;
      return v;
    case KeyType::Int:
    case KeyType::Number: {
      const std::string t = trim(text);
      const char* b = t.data();
      const char* e = t.data() + t.size();
      int64_t i = 0;
      auto [p, ec] = std::from_chars(b, e, i);
      if (ec == std::errc() && p == e && !t.empty()) {
        v.kind = Value::Kind::Int;
        v.integer = i;
        v.number = static_cast<double>(i);
        return v;
      }
      if (ec == std::errc::result_out_of_range) fail(v.pos, quoted(key) + " is out of range");
      if (s.info.type == KeyType::Number) {
        double d = 0;
        auto [pd, ecd] = std::from_chars(b, e, d);
        if (ecd == std::errc() && pd == e && std::isfinite(d)) {
          v.kind = Value::Kind::Float;
          v.number = d;
          return v;
        }
        fail(v.pos, quoted(key) + " must be a number");
      }
      fail(v.pos, quoted(key) + " must be an integer");
    }
    case KeyType::Bool: {
      std::string t = trim(text);
      std::transform(t.begin(), t.end(), t.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      v.kind = Value::Kind::Bool;
      if (t == "1" || t == "true" || t == "yes" || t == "on") {
        v.boolean = true;
      } else if (t == "0" || t == "false" || t == "no" || t == "off") {
        v.boolean = false;
      } else {
        fail(v.pos, quoted(key) + " must be a boolean (1, 0, true, false, yes, no, on, off)");
      }
      return v;
    }
    case KeyType::StringList: {
      v.kind = Value::Kind::List;
      size_t start = 0;
      while (true) {
        const size_t comma = text.find(',', start);
        const std::string item =
            trim(std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (item.empty()) fail(v.pos, quoted(key) + " has an empty item (comma-separated list)");
        Value iv;
        iv.kind = Value::Kind::String;
        iv.pos = v.pos;
        iv.string = item;
        v.list.push_back(std::move(iv));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return v;
    }
    case KeyType::Object: break;
  }
  fail(v.pos, quoted(key) + " cannot be set from the environment");
}

}  // namespace

const std::vector<KeyInfo>& attribute_keys() {
  static const std::vector<KeyInfo> keys = [] {
    std::vector<KeyInfo> k;
    for (const auto& s : settings()) k.push_back(s.info);
    return k;
  }();
  return keys;
}

const std::vector<std::string>& block_types() {
  static const std::vector<std::string> b = {"model", "api_key", "model_hash"};
  return b;
}

ModelSpec parse_model_spec(const std::string& text, const SourcePos& where) {
  if (text.empty()) fail(where, "a model must not be empty (NAME, PATH or NAME=PATH)");
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return ModelSpec{"", text, {}, {}};
  if (eq == 0 || eq + 1 == text.size()) fail(where, "a model NAME=PATH needs both a name and a path");
  return ModelSpec{text.substr(0, eq), text.substr(eq + 1), {}, {}};
}

void set_port(Config& cfg, int64_t port, const SourcePos& where) {
  if (port < 0 || port > 65535) fail(where, "'port' is out of range (0..65535)");
  cfg.port = static_cast<int>(port);
}

void set_threads(Config& cfg, int64_t threads, const SourcePos& where) {
  if (threads < 0 || threads > 1024) fail(where, "'threads' is out of range (0..1024)");
  cfg.threads = static_cast<int>(threads);
}

void set_ctx_size(Config& cfg, int64_t ctx_size, const SourcePos& where) {
  if (ctx_size < 0 || ctx_size > std::numeric_limits<int>::max()) {
    fail(where, "'ctx_size' is out of range (0.." + std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  cfg.ctx_size = static_cast<int>(ctx_size);
}

void set_host(Config& cfg, const std::string& host, const SourcePos& where) {
  set_host_impl(cfg, host, where, "host");
}

void apply_file(Config& cfg, const hcl::Body& body, const Env& env) {
  std::map<std::string, const hcl::Attribute*> by_setting;
  for (const auto& a : body.attributes) {
    const Setting* s = find_setting(a.name);
    if (!s) {
      if (a.name == "model" || a.name == "api_key") {
        fail(a.pos, "unknown key '" + a.name + "' (use a '" + a.name + "' block or the list '" + a.name + "s')");
      }
      fail(a.pos, "unknown key '" + a.name + "'");
    }
    if (!s->apply) {
      check_type(a.value, a.name, s->info.type);
      fail(a.pos, quoted(a.name) + " is not supported yet");
    }
    if (auto it = by_setting.find(s->canonical); it != by_setting.end()) {
      fail(a.pos, quoted(a.name) + " and " + quoted(it->second->name) + " set the same setting (first at " +
                      line_col(it->second->pos) + ")");
    }
    by_setting.emplace(s->canonical, &a);
    s->apply(cfg, a.value, Ctx{a.name, env});
  }

  for (const auto& b : body.blocks) {
    if (b.type == "model") {
      ModelSpec m = model_block(b);
      for (const auto& other : cfg.models) {
        if (other.name == m.name) fail(b.label_pos[0], "duplicate model name '" + m.name + "'");
      }
      cfg.models.push_back(std::move(m));
    } else if (b.type == "api_key") {
      ApiKey k = api_key_block(b);
      for (const auto& other : cfg.api_keys) {
        if (other.identity == k.identity) {
          fail(b.label_pos[0], "duplicate API key identity '" + k.identity + "'");
        }
        if (other.sha256 == k.sha256) {
          fail(b.pos, "duplicate API key (same key as '" + other.identity + "')");
        }
      }
      cfg.api_keys.push_back(k);
    } else if (b.type == "model_hash") {
      model_hash_block(cfg, b);
    } else if (find_setting(b.type)) {
      fail(b.pos, quoted(b.type) + " is a key, not a block (write " + b.type + " = ...)");
    } else {
      fail(b.pos, "unknown block '" + b.type + "'");
    }
  }
}

void apply_env(Config& cfg, const Env& env) {
  std::map<std::string, std::string> var_by_setting;
  for (const auto& s : settings()) {
    if (s.info.env.empty()) continue;
    auto it = env.find(s.info.env);
    if (it == env.end() || it->second.empty()) continue;
    const std::string& var = s.info.env;
    const SourcePos where{var, 0, 0};
    Value v = env_value(it->second, s, var);
    if (!s.apply) {
      check_type(v, s.info.name, s.info.type);
      fail(where, quoted(s.info.name) + " is not supported yet");
    }
    if (auto prev = var_by_setting.find(s.canonical); prev != var_by_setting.end()) {
      fail(where, var + " and " + prev->second + " set the same setting");
    }
    var_by_setting.emplace(s.canonical, var);
    s.apply(cfg, v, Ctx{s.info.name, env});
    hcl::wipe(v);
  }
}

}  // namespace a3s::power::config
