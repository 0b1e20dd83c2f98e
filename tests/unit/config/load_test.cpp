// config::load: file discovery, precedence (defaults < file < env < CLI) and effective_json.
#include <cstdlib>

#include <gtest/gtest.h>

#include "config/api_key.h"
#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

using Env = std::map<std::string, std::string>;

TEST(ConfigLoad, DefaultsWithoutAnyFile) {
  TempDir home;
  Config c = load({}, {{"HOME", home.path()}});
  EXPECT_EQ(c.home, home.path() + "/.a3s/power");
  EXPECT_EQ(c.config_file, "");
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, 11434);
}

TEST(ConfigLoad, PowerHomeConfigIsPickedUp) {
  TempDir dir;
  const std::string path = dir.write("config.hcl", "port = 1234\nthreads = 3\n");
  Config c = load({}, {{"A3S_POWER_HOME", dir.path()}, {"HOME", "/nonexistent"}});
  EXPECT_EQ(c.home, dir.path());
  EXPECT_EQ(c.config_file, path);
  EXPECT_EQ(c.port, 1234);
  EXPECT_EQ(c.threads, 3);
}

TEST(ConfigLoad, HomeDefaultsToDotA3sPowerUnderHome) {
  TempDir dir;
  dir.write(".a3s/power/config.hcl", "port = 4321\n");
  Config c = load({}, {{"HOME", dir.path()}});
  EXPECT_EQ(c.home, dir.path() + "/.a3s/power");
  EXPECT_EQ(c.port, 4321);
}

TEST(ConfigLoad, ExplicitConfigFileWinsOverTheHomeFile) {
  TempDir dir;
  dir.write("config.hcl", "port = 1111\n");
  const std::string other = dir.write("other.hcl", "port = 2222\nhome = \"/srv/power\"\n");
  CliOverrides cli;
  cli.config_file = other;
  Config c = load(cli, {{"A3S_POWER_HOME", dir.path()}});
  EXPECT_EQ(c.port, 2222);
  EXPECT_EQ(c.config_file, other);
  // A3S_POWER_HOME is an environment setting, so it wins over the file's home.
  EXPECT_EQ(c.home, dir.path());
  EXPECT_EQ(load(cli, {{"HOME", dir.path()}}).home, "/srv/power");
}

TEST(ConfigLoad, MissingExplicitConfigIsAnError) {
  TempDir dir;
  CliOverrides cli;
  cli.config_file = dir.path() + "/nope.hcl";
  EXPECT_EQ(config_error_of([&] { load(cli, {{"HOME", dir.path()}}); }),
            *cli.config_file + ": config file not found");
  cli.config_file = dir.path();
  EXPECT_EQ(config_error_of([&] { load(cli, {{"HOME", dir.path()}}); }),
            *cli.config_file + ": config file is not a regular file");
  cli.config_file = "";
  EXPECT_EQ(config_error_of([&] { load(cli, {{"HOME", dir.path()}}); }), "--config: empty path");
}

TEST(ConfigLoad, FileErrorsNameThePath) {
  TempDir dir;
  const std::string path = dir.write("config.hcl", "port = 1\n\n  bogus = 2\n");
  EXPECT_EQ(config_error_of([&] { load({}, {{"A3S_POWER_HOME", dir.path()}}); }),
            path + ":3:3: unknown key 'bogus'");
}

TEST(ConfigLoad, EnvironmentOverridesTheFile) {
  TempDir dir;
  dir.write("config.hcl",
            "host = \"10.0.0.1\"\nport = 1000\nthreads = 2\noffline = false\napi_keys = [\"file-key\"]\n"
            "models = [\"a=/a.gguf\"]\nqueue_timeout = 5\nlog_level = \"warn\"\nmax_body_bytes = 2048\n");
  Env env = {{"A3S_POWER_HOME", dir.path()},
             {"A3S_POWER_PORT", "2000"},
             {"A3S_POWER_HOST", "0.0.0.0"},
             {"A3S_POWER_THREADS", " 7 "},
             {"A3S_POWER_OFFLINE", "1"},
             {"A3S_POWER_API_KEYS", "env-one, env-two"},
             {"A3S_POWER_MODELS", "b=/b.gguf,c"},
             {"A3S_POWER_QUEUE_TIMEOUT_SECONDS", "0.25"},
             {"A3S_POWER_LOG_LEVEL", "error"},
             {"A3S_POWER_CHAT_TEMPLATE_FALLBACK", "chatml"},
             {"A3S_POWER_ALLOW_UNAUTHENTICATED", "TRUE"},
             {"A3S_POWER_METRICS_PUBLIC", "yes"}};
  Config c = load({}, env);
  EXPECT_EQ(c.port, 2000);
  EXPECT_EQ(c.host, "0.0.0.0");
  EXPECT_EQ(c.threads, 7);
  EXPECT_TRUE(c.offline);
  ASSERT_EQ(c.api_keys.size(), 2u);  // the variable replaces the file's keys
  EXPECT_EQ(c.api_keys[0].identity, "key1");
  EXPECT_EQ(c.api_keys[0].sha256, hash_raw_key("env-one"));
  EXPECT_EQ(c.api_keys[1].sha256, hash_raw_key("env-two"));
  ASSERT_EQ(c.models.size(), 2u);
  EXPECT_EQ(c.models[0].name, "b");
  EXPECT_EQ(c.models[1].ref, "c");
  EXPECT_DOUBLE_EQ(c.queue_timeout_seconds, 0.25);
  EXPECT_EQ(c.log_level, "error");
  EXPECT_EQ(c.chat_template_fallback, "chatml");
  EXPECT_TRUE(c.allow_unauthenticated);
  EXPECT_TRUE(c.metrics_public);
  EXPECT_EQ(c.max_body_bytes, 2048u);  // not overridden: the file value stays
}

TEST(ConfigLoad, EmptyAndUnrelatedVariablesAreIgnored) {
  TempDir dir;
  dir.write("config.hcl", "port = 1000\n");
  Config c = load({}, {{"A3S_POWER_HOME", dir.path()},
                       {"A3S_POWER_PORT", ""},
                       {"A3S_POWER_ISA", "avx2"},
                       {"PORT", "1"}});
  EXPECT_EQ(c.port, 1000);
}

TEST(ConfigLoad, EnvironmentErrorsNameTheVariable) {
  TempDir dir;
  const std::vector<std::pair<Env, std::string>> cases = {
      {{{"A3S_POWER_PORT", "abc"}}, "A3S_POWER_PORT: 'port' must be an integer"},
      {{{"A3S_POWER_PORT", "8080x"}}, "A3S_POWER_PORT: 'port' must be an integer"},
      {{{"A3S_POWER_PORT", "70000"}}, "A3S_POWER_PORT: 'port' is out of range (0..65535)"},
      {{{"A3S_POWER_PORT", "99999999999999999999"}}, "A3S_POWER_PORT: 'port' is out of range"},
      {{{"A3S_POWER_THREADS", "-2"}}, "A3S_POWER_THREADS: 'threads' is out of range (0..1024)"},
      {{{"A3S_POWER_OFFLINE", "maybe"}},
       "A3S_POWER_OFFLINE: 'offline' must be a boolean (1, 0, true, false, yes, no, on, off)"},
      {{{"A3S_POWER_QUEUE_TIMEOUT", "soon"}}, "A3S_POWER_QUEUE_TIMEOUT: 'queue_timeout' must be a number"},
      {{{"A3S_POWER_QUEUE_TIMEOUT", "inf"}}, "A3S_POWER_QUEUE_TIMEOUT: 'queue_timeout' must be a number"},
      {{{"A3S_POWER_QUEUE_TIMEOUT", "0"}},
       "A3S_POWER_QUEUE_TIMEOUT: 'queue_timeout' is out of range (> 0 and <= 3600 seconds)"},
      {{{"A3S_POWER_MAX_BODY_BYTES", "1.5"}}, "A3S_POWER_MAX_BODY_BYTES: 'max_body_bytes' must be an integer"},
      {{{"A3S_POWER_LOG_LEVEL", "loud"}},
       "A3S_POWER_LOG_LEVEL: 'log_level' must be one of trace, debug, info, warn, error, off"},
      {{{"A3S_POWER_API_KEYS", "SECRET-a,,SECRET-b"}},
       "A3S_POWER_API_KEYS: 'api_keys' has an empty item (comma-separated list)"},
      {{{"A3S_POWER_API_KEYS", "SECRET-a,SECRET-a"}}, "A3S_POWER_API_KEYS: duplicate API key (same key as 'key1')"},
      {{{"A3S_POWER_MODELS", "a=/x,a=/y"}}, "A3S_POWER_MODELS: duplicate model name 'a'"},
      {{{"A3S_POWER_HOST", "a"}, {"A3S_POWER_BIND", "b"}},
       "A3S_POWER_BIND: A3S_POWER_BIND and A3S_POWER_HOST set the same setting"},
      {{{"A3S_POWER_TLS_PORT", "70000"}}, "A3S_POWER_TLS_PORT: 'tls_port' is out of range (0..65535)"},
      {{{"A3S_POWER_TLS_PORT", "https"}}, "A3S_POWER_TLS_PORT: 'tls_port' must be an integer"},
      {{{"A3S_POWER_REDACT_LOGS", "sometimes"}},
       "A3S_POWER_REDACT_LOGS: 'redact_logs' must be a boolean (1, 0, true, false, yes, no, on, off)"},
      {{{"A3S_POWER_KV_CACHE_TYPE", "q8_0"}}, "A3S_POWER_KV_CACHE_TYPE: 'kv_cache_type' is not supported yet"},
  };
  for (auto [env, expected] : cases) {
    env["HOME"] = dir.path();
    const std::string msg = config_error_of([&] { load({}, env); });
    EXPECT_EQ(msg, expected);
    EXPECT_EQ(msg.find("SECRET"), std::string::npos) << msg;
  }
}

TEST(ConfigLoad, CliOverridesTheEnvironment) {
  TempDir dir;
  dir.write("config.hcl", "port = 1000\nmodels = [\"file.gguf\"]\n");
  CliOverrides cli;
  cli.host = "::1";
  cli.port = 3000;
  cli.threads = 9;
  cli.ctx_size = 256;
  cli.models = {"x=/x.gguf", "/y.gguf"};
  Config c = load(cli, {{"A3S_POWER_HOME", dir.path()},
                        {"A3S_POWER_PORT", "2000"},
                        {"A3S_POWER_HOST", "0.0.0.0"},
                        {"A3S_POWER_THREADS", "4"},
                        {"A3S_POWER_CTX_SIZE", "128"},
                        {"A3S_POWER_MODELS", "env.gguf"}});
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, 3000);
  EXPECT_EQ(c.threads, 9);
  EXPECT_EQ(c.ctx_size, 256);
  ASSERT_EQ(c.models.size(), 2u);
  EXPECT_EQ(c.models[0].name, "x");
  EXPECT_EQ(c.models[0].ref, "/x.gguf");
  EXPECT_EQ(c.models[1].name, "");
  EXPECT_EQ(c.models[1].ref, "/y.gguf");
}

TEST(ConfigLoad, CliValuesAreRangeChecked) {
  TempDir dir;
  const Env env = {{"HOME", dir.path()}};
  auto with = [&](auto set) {
    CliOverrides cli;
    set(cli);
    return config_error_of([&] { load(cli, env); });
  };
  EXPECT_EQ(with([](CliOverrides& c) { c.port = 70000; }), "--port: 'port' is out of range (0..65535)");
  EXPECT_EQ(with([](CliOverrides& c) { c.threads = -1; }), "--threads: 'threads' is out of range (0..1024)");
  EXPECT_EQ(with([](CliOverrides& c) { c.ctx_size = -5; }),
            "--ctx-size: 'ctx_size' is out of range (0..2147483647)");
  EXPECT_EQ(with([](CliOverrides& c) { c.host = ""; }), "--host: 'host' must be a non-empty address without spaces");
  EXPECT_EQ(with([](CliOverrides& c) { c.models = {"=x"}; }),
            "--model: a model NAME=PATH needs both a name and a path");
  EXPECT_EQ(with([](CliOverrides& c) { c.models = {"a=/x", "a=/y"}; }), "--model: duplicate model name 'a'");
  // Enumerated settings are parsed here, once: an unknown spelling is an error, never a default.
  EXPECT_EQ(with([](CliOverrides& c) { c.weights = "Stream"; }), "--weights: must be one of auto, resident, stream");
  EXPECT_EQ(with([](CliOverrides& c) { c.model_decrypt = "disk"; }), "--decrypt: must be one of file, memory, stream");
  {
    CliOverrides typed;
    typed.weights = "stream";
    typed.model_decrypt = "file";
    const Config c = load(typed, env);
    EXPECT_EQ(c.weights, WeightsMode::Stream);
    EXPECT_EQ(c.model_decrypt, DecryptMode::File);
    EXPECT_EQ(c.tee_policy, TeePolicy::kStrict);
  }
  // Port 0 (ephemeral) is allowed.
  CliOverrides cli;
  cli.port = 0;
  EXPECT_EQ(load(cli, env).port, 0);
}

TEST(ConfigLoad, AdminKeysAreHashedAndMayNotRepeatAnApiKey) {
  Config c = load({}, {{"A3S_POWER_ADMIN_API_KEYS", "sk-root,sk-ops"}, {"A3S_POWER_HOME", "/tmp/a3s-h"}});
  ASSERT_EQ(c.admin_api_keys.size(), 2u);
  EXPECT_EQ(c.admin_api_keys[0].identity, "admin1");
  EXPECT_EQ(c.effective_json()["admin_api_keys"], nlohmann::json({"admin1", "admin2"}));
  EXPECT_EQ(c.effective_json().dump().find("sk-root"), std::string::npos);
  try {
    load({}, {{"A3S_POWER_ADMIN_API_KEYS", "sk-same"}, {"A3S_POWER_API_KEYS", "sk-same"}, {"A3S_POWER_HOME", "/tmp/a3s-h"}});
    FAIL() << "a key in both scopes must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kConfig);
    EXPECT_NE(std::string(e.what()).find("admin_api_keys and api_keys hold the same key"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("sk-same"), std::string::npos) << "the key is never echoed";
  }
}

TEST(ConfigLoad, ServeStoreDefaultsToOnOnlyWithoutConfiguredModels) {
  const std::map<std::string, std::string> home = {{"A3S_POWER_HOME", "/tmp/a3s-h"}};
  EXPECT_TRUE(load({}, home).serve_store);
  CliOverrides cli;
  cli.models = {"/models/m.gguf"};
  EXPECT_FALSE(load(cli, home).serve_store);
  auto env = home;
  env["A3S_POWER_SERVE_STORE"] = "true";
  EXPECT_TRUE(load(cli, env).serve_store);
  env["A3S_POWER_SERVE_STORE"] = "false";
  EXPECT_FALSE(load({}, env).serve_store);
}

TEST(ConfigLoad, UnknownPowerVariablesAreWarningsNamingThem) {
  const Config c = load({}, {{"A3S_POWER_HOME", "/tmp/a3s-h"},
                             {"A3S_POWER_PROT", "8080"},
                             {"A3S_POWER_API_KEY", "sk-client"},
                             {"A3S_POWER_ISA", "scalar"},
                             {"A3S_POWER_PORT", "8080"},
                             {"OTHER_VAR", "x"}});
  ASSERT_EQ(c.warnings.size(), 2u);
  std::string all;
  for (const auto& w : c.warnings) all += w + "\n";
  EXPECT_NE(all.find("unknown variable A3S_POWER_PROT"), std::string::npos) << all;
  EXPECT_NE(all.find("A3S_POWER_API_KEY is the clients' variable"), std::string::npos) << all;
  EXPECT_NE(all.find("takes api_keys"), std::string::npos) << all;
  EXPECT_EQ(all.find("sk-client"), std::string::npos) << "values are never shown";
  EXPECT_EQ(all.find("8080"), std::string::npos);
}

TEST(ConfigLoad, ChatTemplateFilesAreReadAndTheirDigestsPublished) {
  TempDir dir;
  const std::string server_t = dir.write("server.jinja", "{{ messages[0].content }}");
  const std::string model_t = dir.write("model.jinja", "{% for m in messages %}{{ m.content }}{% endfor %}");
  dir.write("config.hcl", "chat_template_file = \"" + server_t + "\"\nmodel \"m\" {\n  path = \"/models/m.gguf\"\n"
                          "  chat_template_file = \"" + model_t + "\"\n}\n");
  Config c = load({}, {{"A3S_POWER_HOME", dir.path()}});
  EXPECT_EQ(c.chat_template, "{{ messages[0].content }}");
  ASSERT_EQ(c.models.size(), 1u);
  EXPECT_EQ(c.models[0].chat_template, "{% for m in messages %}{{ m.content }}{% endfor %}");
  const nlohmann::json j = c.effective_json();
  EXPECT_EQ(j["chat_template_file"], server_t);
  // SHA-256 of "{{ messages[0].content }}".
  EXPECT_EQ(j["chat_template_sha256"].get<std::string>().size(), 64u);
  EXPECT_NE(j["chat_template_sha256"], j["models"][0]["chat_template_sha256"]);
  EXPECT_EQ(j["models"][0]["chat_template_file"], model_t);
  // The flag overrides the file's server default; without any, the digest is null.
  CliOverrides cli;
  cli.chat_template_file = model_t;
  EXPECT_EQ(load(cli, {{"A3S_POWER_HOME", dir.path()}}).effective_json()["chat_template_sha256"],
            j["models"][0]["chat_template_sha256"]);
  TempDir empty_home;
  EXPECT_TRUE(load({}, {{"A3S_POWER_HOME", empty_home.path()}}).effective_json()["chat_template_sha256"].is_null());
}

TEST(ConfigLoad, ChatTemplateFileErrorsNameTheSettingAndThePath) {
  TempDir dir;
  const Env env = {{"A3S_POWER_HOME", dir.path()}};
  CliOverrides cli;
  cli.chat_template_file = dir.path() + "/missing.jinja";
  EXPECT_EQ(config_error_of([&] { load(cli, env); }), "chat_template_file: " + *cli.chat_template_file + " does not exist");
  cli.chat_template_file = dir.path();
  EXPECT_EQ(config_error_of([&] { load(cli, env); }), "chat_template_file: " + dir.path() + " is not a regular file");
  cli.chat_template_file = dir.write("blank.jinja", " \n\t");
  EXPECT_EQ(config_error_of([&] { load(cli, env); }), "chat_template_file: " + *cli.chat_template_file + " is empty");
  cli.chat_template_file = dir.write("huge.jinja", std::string(kMaxChatTemplateBytes + 1, 'x'));
  EXPECT_EQ(config_error_of([&] { load(cli, env); }), "chat_template_file: " + *cli.chat_template_file +
                                                          " is larger than 1 MiB");
  cli.chat_template_file = "";
  EXPECT_EQ(config_error_of([&] { load(cli, env); }), "--chat-template-file: empty path");
  dir.write("config.hcl", "model \"m\" {\n  path = \"/m.gguf\"\n  chat_template_file = \"/no/such.jinja\"\n}\n");
  EXPECT_EQ(config_error_of([&] { load({}, env); }), "model \"m\" chat_template_file: /no/such.jinja does not exist");
  dir.write("config.hcl", "model \"m\" {\n  path = \"/m.gguf\"\n  chat_template_file = \"\"\n}\n");
  EXPECT_NE(config_error_of([&] { load({}, env); }).find("chat_template_file"), std::string::npos);
}

TEST(ConfigLoad, EffectiveJsonHasEverySettingAndNoSecrets) {
  TempDir dir;
  dir.write("config.hcl",
            "api_keys = [\"sk-raw-secret-1\"]\n"
            "api_key \"alice\" {\n  hash = \"sha256:" +
                std::string(64, 'c') + "\"\n}\napi_key \"bob\" { key = \"sk-raw-secret-2\" }\n"
                "models = [\"m=/models/m.gguf\"]\n");
  Config c = load({}, {{"A3S_POWER_HOME", dir.path()}, {"A3S_POWER_API_KEYS", ""}});
  const nlohmann::json j = c.effective_json();
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "admin_api_keys", "allow_unauthenticated", "api_keys", "batch_size", "chat_template_fallback",
                      "chat_template_file", "chat_template_sha256", "ctx_size", "health_public_details", "home", "host", "kv_cache_mb", "log_level", "max_body_bytes",
                      "max_concurrent_requests", "max_queue", "memory_budget_mb", "metrics_public", "model_decrypt",
                      "model_hashes", "model_key_source", "model_signing_key", "models", "offline", "port",
                      "prompt_cache_max_entries", "prompt_cache_mb", "prompt_cache_ttl_seconds", "pull_ca_file", "queue_timeout_seconds", "ratls", "ratls_cert_lifetime_seconds", "redact_logs",
                      "serve_store", "suppress_token_metrics", "tee_device_root",
                      "tee_mode", "tee_policy", "threads", "tls_port", "vsock_port", "weights"}));
  EXPECT_EQ(j["model_key_source"], (nlohmann::json{{"env", "A3S_MODEL_KEY"}}));
  EXPECT_EQ(j["api_keys"], (nlohmann::json{"key1", "alice", "bob"}));
  EXPECT_EQ(j["models"], (nlohmann::json::array({{{"name", "m"}, {"ref", "/models/m.gguf"}}})));
  EXPECT_EQ(j["port"], 11434);
  EXPECT_EQ(j["max_body_bytes"], 4u << 20);
  EXPECT_EQ(j["home"], dir.path());

  const std::string dump = j.dump();
  EXPECT_EQ(dump.find("sk-raw-secret"), std::string::npos);
  EXPECT_EQ(dump.find(std::string(16, 'c')), std::string::npos);  // no digest either
  // Deterministic: the same inputs give the same bytes.
  EXPECT_EQ(load({}, {{"A3S_POWER_HOME", dir.path()}}).effective_json().dump(), dump);
}

TEST(ConfigLoad, ProcessEnvironmentIsRead) {
  ASSERT_EQ(setenv("A3S_POWER_CONFIG_TEST_VAR", "a=b=c", 1), 0);
  const auto env = process_env();
  ASSERT_TRUE(env.count("A3S_POWER_CONFIG_TEST_VAR"));
  EXPECT_EQ(env.at("A3S_POWER_CONFIG_TEST_VAR"), "a=b=c");
  unsetenv("A3S_POWER_CONFIG_TEST_VAR");
}

}  // namespace
}  // namespace a3s::power::config::test
