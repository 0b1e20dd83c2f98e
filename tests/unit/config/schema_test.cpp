// Mapping config-file keys to Config: types, ranges, blocks, unknown and not-yet-supported keys.
#include <cctype>

#include <gtest/gtest.h>

#include "config/api_key.h"
#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

// "c.hcl:1:<col of the value>: " for a one-line "key = value".
std::string value_at(const std::string& key) { return "c.hcl:1:" + std::to_string(key.size() + 4) + ": "; }

TEST(ConfigSchema, DefaultsMatchTheHeader) {
  Config c = apply_text("");
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, 11434);
  EXPECT_TRUE(c.models.empty());
  EXPECT_TRUE(c.api_keys.empty());
  EXPECT_FALSE(c.allow_unauthenticated);
  EXPECT_FALSE(c.metrics_public);
  EXPECT_EQ(c.max_concurrent_requests, 4);
  EXPECT_EQ(c.max_queue, 64);
  EXPECT_DOUBLE_EQ(c.queue_timeout_seconds, 30.0);
  EXPECT_EQ(c.max_body_bytes, 4u << 20);
  EXPECT_EQ(c.ctx_size, 0);
  EXPECT_EQ(c.threads, 0);
  EXPECT_EQ(c.batch_size, 512);
  EXPECT_EQ(c.chat_template_fallback, "");
  EXPECT_EQ(c.log_level, "info");
  EXPECT_FALSE(c.offline);
}

TEST(ConfigSchema, EveryScalarKeyIsApplied) {
  Config c = apply_text(R"(
host = "0.0.0.0"
port = 8080
home = "/srv/power"
allow_unauthenticated = true
metrics_public = true
max_concurrent_requests = 8
max_queue = 0
queue_timeout = 2.5
max_body_bytes = 1048576
ctx_size = 4096
threads = 6
batch_size = 256
chat_template_fallback = "chatml"
log_level = "debug"
offline = true
)");
  EXPECT_EQ(c.host, "0.0.0.0");
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.home, "/srv/power");
  EXPECT_TRUE(c.allow_unauthenticated);
  EXPECT_TRUE(c.metrics_public);
  EXPECT_EQ(c.max_concurrent_requests, 8);
  EXPECT_EQ(c.max_queue, 0);
  EXPECT_DOUBLE_EQ(c.queue_timeout_seconds, 2.5);
  EXPECT_EQ(c.max_body_bytes, 1048576u);
  EXPECT_EQ(c.ctx_size, 4096);
  EXPECT_EQ(c.threads, 6);
  EXPECT_EQ(c.batch_size, 256);
  EXPECT_EQ(c.chat_template_fallback, "chatml");
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_TRUE(c.offline);
}

TEST(ConfigSchema, AliasesSetTheSameSetting) {
  Config c = apply_text("bind = \"::1\"\nqueue_timeout_seconds = 7\n");
  EXPECT_EQ(c.host, "::1");
  EXPECT_DOUBLE_EQ(c.queue_timeout_seconds, 7.0);
  EXPECT_EQ(apply_error("host = \"a\"\nbind = \"b\"\n"),
            "c.hcl:2:1: 'bind' and 'host' set the same setting (first at 1:1)");
  EXPECT_EQ(apply_error("queue_timeout_seconds = 1\nqueue_timeout = 2\n"),
            "c.hcl:2:1: 'queue_timeout' and 'queue_timeout_seconds' set the same setting (first at 1:1)");
}

struct TypeCase {
  std::string key;
  std::string value;
  std::string expected;  // message after "file:line:col: "
};

class ConfigTypeError : public ::testing::TestWithParam<TypeCase> {};

TEST_P(ConfigTypeError, NamesFileLineColOfTheValue) {
  const TypeCase& tc = GetParam();
  EXPECT_EQ(apply_error(tc.key + " = " + tc.value + "\n"), value_at(tc.key) + tc.expected);
  // On a later line and indented, the position follows.
  EXPECT_EQ(apply_error("\n\n" + tc.key + " =   " + tc.value + "\n"),
            "c.hcl:3:" + std::to_string(tc.key.size() + 6) + ": " + tc.expected);
}

INSTANTIATE_TEST_SUITE_P(
    EveryKey, ConfigTypeError,
    ::testing::Values(
        TypeCase{"host", "1", "'host' must be a string, found integer"},
        TypeCase{"bind", "[\"x\"]", "'bind' must be a string, found list"},
        TypeCase{"port", "\"80\"", "'port' must be an integer, found string"},
        TypeCase{"home", "true", "'home' must be a string, found bool"},
        TypeCase{"models", "\"a.gguf\"", "'models' must be a list of strings, found string"},
        TypeCase{"api_keys", "\"k\"", "'api_keys' must be a list of strings, found string"},
        TypeCase{"allow_unauthenticated", "\"yes\"", "'allow_unauthenticated' must be a boolean, found string"},
        TypeCase{"metrics_public", "1", "'metrics_public' must be a boolean, found integer"},
        TypeCase{"max_concurrent_requests", "1.5", "'max_concurrent_requests' must be an integer, found number"},
        TypeCase{"max_queue", "\"1\"", "'max_queue' must be an integer, found string"},
        TypeCase{"queue_timeout", "\"5\"", "'queue_timeout' must be a number, found string"},
        TypeCase{"queue_timeout_seconds", "true", "'queue_timeout_seconds' must be a number, found bool"},
        TypeCase{"max_body_bytes", "1e6", "'max_body_bytes' must be an integer, found number"},
        TypeCase{"ctx_size", "null", "'ctx_size' must be an integer, found null"},
        TypeCase{"threads", "[1]", "'threads' must be an integer, found list"},
        TypeCase{"batch_size", "{}", "'batch_size' must be an integer, found object"},
        TypeCase{"chat_template_fallback", "1", "'chat_template_fallback' must be a string, found integer"},
        TypeCase{"log_level", "true", "'log_level' must be a string, found bool"},
        TypeCase{"offline", "\"1\"", "'offline' must be a boolean, found string"},
        // Keys of features not built yet are type-checked before they are refused.
        TypeCase{"tls_port", "\"443\"", "'tls_port' must be an integer, found string"},
        TypeCase{"vsock_port", "\"5000\"", "'vsock_port' must be an integer, found string"},
        TypeCase{"tee_mode", "1", "'tee_mode' must be a boolean, found integer"},
        TypeCase{"model_decrypt", "true", "'model_decrypt' must be a string, found bool"},
        TypeCase{"in_memory_decrypt", "\"yes\"", "'in_memory_decrypt' must be a boolean, found string"},
        TypeCase{"model_key_source", "\"env\"", "'model_key_source' must be an object, found string"},
        TypeCase{"model_hashes", "[]", "'model_hashes' must be an object, found list"},
        TypeCase{"redact_logs", "\"on\"", "'redact_logs' must be a boolean, found string"},
        TypeCase{"prompt_cache_ttl_seconds", "\"1\"", "'prompt_cache_ttl_seconds' must be a number, found string"}),
    [](const auto& info) { return info.param.key; });

TEST(ConfigSchema, ListElementTypeErrorsPointAtTheElement) {
  EXPECT_EQ(apply_error("models = [\"a\", 2]\n"), "c.hcl:1:16: 'models' must be a list of strings, found integer");
  EXPECT_EQ(apply_error("api_keys = [\n  \"a\",\n  true,\n]\n"),
            "c.hcl:3:3: 'api_keys' must be a list of strings, found bool");
}

struct RangeCase {
  std::string key;
  std::string value;
  std::string expected;
};

class ConfigRangeError : public ::testing::TestWithParam<RangeCase> {};

TEST_P(ConfigRangeError, NamesFileLineColOfTheValue) {
  const RangeCase& rc = GetParam();
  EXPECT_EQ(apply_error("# c\n" + rc.key + " = " + rc.value + "\n"),
            "c.hcl:2:" + std::to_string(rc.key.size() + 4) + ": " + rc.expected);
}

INSTANTIATE_TEST_SUITE_P(
    EveryKey, ConfigRangeError,
    ::testing::Values(
        RangeCase{"port", "65536", "'port' is out of range (0..65535)"},
        RangeCase{"port", "-1", "'port' is out of range (0..65535)"},
        RangeCase{"vsock_port", "4294967295", "'vsock_port' is out of range (0..4294967294)"},
        RangeCase{"vsock_port", "-1", "'vsock_port' is out of range (0..4294967294)"},
        RangeCase{"max_concurrent_requests", "0", "'max_concurrent_requests' is out of range (1..1024)"},
        RangeCase{"max_concurrent_requests", "1025", "'max_concurrent_requests' is out of range (1..1024)"},
        RangeCase{"max_queue", "-1", "'max_queue' is out of range (0..100000)"},
        RangeCase{"max_queue", "100001", "'max_queue' is out of range (0..100000)"},
        RangeCase{"queue_timeout", "0", "'queue_timeout' is out of range (> 0 and <= 3600 seconds)"},
        RangeCase{"queue_timeout", "-0.5", "'queue_timeout' is out of range (> 0 and <= 3600 seconds)"},
        RangeCase{"queue_timeout", "3600.5", "'queue_timeout' is out of range (> 0 and <= 3600 seconds)"},
        RangeCase{"queue_timeout_seconds", "4000",
                  "'queue_timeout_seconds' is out of range (> 0 and <= 3600 seconds)"},
        RangeCase{"max_body_bytes", "1023", "'max_body_bytes' is out of range (1024..1073741824)"},
        RangeCase{"max_body_bytes", "1073741825", "'max_body_bytes' is out of range (1024..1073741824)"},
        RangeCase{"ctx_size", "-1", "'ctx_size' is out of range (0..2147483647)"},
        RangeCase{"ctx_size", "2147483648", "'ctx_size' is out of range (0..2147483647)"},
        RangeCase{"threads", "-1", "'threads' is out of range (0..1024)"},
        RangeCase{"threads", "1025", "'threads' is out of range (0..1024)"},
        RangeCase{"batch_size", "0", "'batch_size' is out of range (1..65536)"},
        RangeCase{"batch_size", "65537", "'batch_size' is out of range (1..65536)"},
        RangeCase{"host", "\"\"", "'host' must be a non-empty address without spaces"},
        RangeCase{"host", "\"a b\"", "'host' must be a non-empty address without spaces"},
        RangeCase{"bind", "\"\"", "'bind' must be a non-empty address without spaces"},
        RangeCase{"home", "\"\"", "'home' must not be empty"},
        RangeCase{"chat_template_fallback", "\"jinja\"",
                  "'chat_template_fallback' must be one of \"\", chatml, llama2, llama3, mistral, gemma, "
                  "phi3, deepseek, plain"},
        RangeCase{"log_level", "\"verbose\"", "'log_level' must be one of trace, debug, info, warn, error, off"}),
    [](const auto& info) {
      std::string v;
      for (char c : info.param.value) v += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return info.param.key + "_" + v + "_" + std::to_string(info.index);
    });

TEST(ConfigSchema, RangeBoundariesAreAccepted) {
  Config lo = apply_text(
      "port = 0\nmax_concurrent_requests = 1\nmax_queue = 0\nqueue_timeout = 0.001\nmax_body_bytes = 1024\n"
      "ctx_size = 0\nthreads = 0\nbatch_size = 1\n");
  EXPECT_EQ(lo.port, 0);
  EXPECT_EQ(lo.max_concurrent_requests, 1);
  EXPECT_DOUBLE_EQ(lo.queue_timeout_seconds, 0.001);
  EXPECT_EQ(lo.max_body_bytes, 1024u);
  EXPECT_EQ(lo.batch_size, 1);
  Config hi = apply_text(
      "port = 65535\nmax_concurrent_requests = 1024\nmax_queue = 100000\nqueue_timeout = 3600\n"
      "max_body_bytes = 1073741824\nctx_size = 2147483647\nthreads = 1024\nbatch_size = 65536\n");
  EXPECT_EQ(hi.port, 65535);
  EXPECT_EQ(hi.max_concurrent_requests, 1024);
  EXPECT_EQ(hi.max_queue, 100000);
  EXPECT_DOUBLE_EQ(hi.queue_timeout_seconds, 3600.0);
  EXPECT_EQ(hi.max_body_bytes, 1073741824u);
  EXPECT_EQ(hi.ctx_size, 2147483647);
  EXPECT_EQ(hi.threads, 1024);
  EXPECT_EQ(hi.batch_size, 65536);
}

TEST(ConfigSchema, EveryTemplateFamilyAndLogLevelIsAccepted) {
  for (const char* f : {"", "chatml", "llama2", "llama3", "mistral", "gemma", "phi3", "deepseek", "plain"}) {
    EXPECT_EQ(apply_text(std::string("chat_template_fallback = \"") + f + "\"\n").chat_template_fallback, f);
  }
  for (const char* l : {"trace", "debug", "info", "warn", "error", "off"}) {
    EXPECT_EQ(apply_text(std::string("log_level = \"") + l + "\"\n").log_level, l);
  }
}

TEST(ConfigSchema, UnknownKeysAndBlocks) {
  EXPECT_EQ(apply_error("foo = 1\n"), "c.hcl:1:1: unknown key 'foo'");
  EXPECT_EQ(apply_error("port = 1\n\n   Port = 2\n"), "c.hcl:3:4: unknown key 'Port'");
  EXPECT_EQ(apply_error("model = \"x\"\n"),
            "c.hcl:1:1: unknown key 'model' (use a 'model' block or the list 'models')");
  EXPECT_EQ(apply_error("server {\n  port = 1\n}\n"), "c.hcl:1:1: unknown block 'server'");
  EXPECT_EQ(apply_error("port {\n}\n"), "c.hcl:1:1: 'port' is a key, not a block (write port = ...)");
}

class ConfigNotSupported : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(ConfigNotSupported, IsRefusedAtTheKey) {
  const auto& [key, value] = GetParam();
  EXPECT_EQ(apply_error("port = 1\n  " + key + " = " + value + "\n"),
            "c.hcl:2:3: '" + key + "' is not supported yet");
}

INSTANTIATE_TEST_SUITE_P(
    EveryKey, ConfigNotSupported,
    ::testing::Values(std::pair<std::string, std::string>{"kv_cache_type", "\"q8_0\""}),
    [](const auto& info) { return info.param.first; });

TEST(ConfigSchema, PromptCacheKeysAndRanges) {
  Config c;
  EXPECT_EQ(c.prompt_cache_max_entries, 1);
  EXPECT_EQ(c.prompt_cache_ttl_seconds, 300);
  EXPECT_EQ(c.prompt_cache_mb, 256u);
  c = apply_text("prompt_cache_max_entries = 16\nprompt_cache_ttl_seconds = 2.5\nprompt_cache_mb = 0\n");
  EXPECT_EQ(c.prompt_cache_max_entries, 16);
  EXPECT_EQ(c.prompt_cache_ttl_seconds, 2.5);
  EXPECT_EQ(c.prompt_cache_mb, 0u);
  EXPECT_EQ(apply_error("prompt_cache_max_entries = 0\n"), "c.hcl:1:28: 'prompt_cache_max_entries' is out of range (1..1024)");
  EXPECT_EQ(apply_error("prompt_cache_max_entries = 1025\n"),
            "c.hcl:1:28: 'prompt_cache_max_entries' is out of range (1..1024)");
  EXPECT_EQ(apply_error("prompt_cache_ttl_seconds = 0\n"),
            "c.hcl:1:28: 'prompt_cache_ttl_seconds' is out of range (>= 1 and <= 86400 seconds)");
  EXPECT_EQ(apply_error("prompt_cache_mb = -1\n"), "c.hcl:1:19: 'prompt_cache_mb' is out of range (0..1048576)");
}

TEST(ConfigSchema, TeePolicyAndDeviceRoot) {
  EXPECT_EQ(apply_error("tee_policy = \"lenient\"\n"), "c.hcl:1:14: 'tee_policy' must be one of strict, development");
  EXPECT_EQ(apply_error("tee_device_root = \"relative/dir\"\n"), "c.hcl:1:19: 'tee_device_root' must be an absolute path");
  EXPECT_EQ(apply_error("tee_device_root = \"\"\n"), "c.hcl:1:19: 'tee_device_root' must be an absolute path");
}

TEST(ConfigSchema, ModelsFromListAndBlocks) {
  Config c = apply_text(R"(
models = ["llama3.2:1b", "/m/stories260K.gguf", "tiny=/m/tiny.gguf"]
model "story" {
  path = "/m/s.gguf"
}
)");
  ASSERT_EQ(c.models.size(), 4u);
  EXPECT_EQ(c.models[0].name, "");
  EXPECT_EQ(c.models[0].ref, "llama3.2:1b");
  EXPECT_EQ(c.models[1].name, "");
  EXPECT_EQ(c.models[1].ref, "/m/stories260K.gguf");
  EXPECT_EQ(c.models[2].name, "tiny");
  EXPECT_EQ(c.models[2].ref, "/m/tiny.gguf");
  EXPECT_EQ(c.models[3].name, "story");
  EXPECT_EQ(c.models[3].ref, "/m/s.gguf");
}

TEST(ConfigSchema, ModelErrors) {
  EXPECT_EQ(apply_error("models = [\"\"]\n"), "c.hcl:1:11: a model must not be empty (NAME, PATH or NAME=PATH)");
  EXPECT_EQ(apply_error("models = [\"=x\"]\n"), "c.hcl:1:11: a model NAME=PATH needs both a name and a path");
  EXPECT_EQ(apply_error("models = [\"a=\"]\n"), "c.hcl:1:11: a model NAME=PATH needs both a name and a path");
  EXPECT_EQ(apply_error("models = [\"a=/x\", \"a=/y\"]\n"), "c.hcl:1:19: duplicate model name 'a'");
  EXPECT_EQ(apply_error("models = [\"a=/x\"]\nmodel \"a\" {\n  path = \"/y\"\n}\n"),
            "c.hcl:2:7: duplicate model name 'a'");
  EXPECT_EQ(apply_error("model {\n  path = \"/y\"\n}\n"),
            "c.hcl:1:1: block 'model' needs exactly one label (the served model name)");
  EXPECT_EQ(apply_error("model \"a\" \"b\" {\n  path = \"/y\"\n}\n"),
            "c.hcl:1:1: block 'model' needs exactly one label (the served model name)");
  EXPECT_EQ(apply_error("model \"a\" {\n}\n"), "c.hcl:1:1: block 'model' needs 'path'");
  EXPECT_EQ(apply_error("model \"a\" {\n  path = 3\n}\n"), "c.hcl:2:10: 'path' must be a string, found integer");
  EXPECT_EQ(apply_error("model \"a\" {\n  path = \"\"\n}\n"), "c.hcl:2:10: 'path' must not be empty");
  EXPECT_EQ(apply_error("model \"a\" {\n  path = \"/x\"\n  sha = 1\n}\n"),
            "c.hcl:3:3: unknown key 'sha' in block 'model'");
  EXPECT_EQ(apply_error("model \"a\" {\n  path = \"/x\"\n  extra {\n  }\n}\n"),
            "c.hcl:3:3: unknown block 'extra' in block 'model'");
  EXPECT_EQ(apply_error("model \"\" {\n  path = \"/x\"\n}\n"), "c.hcl:1:7: a model name must not be empty");
}

TEST(ConfigSchema, ApiKeysFromListAreHashedWithNumberedIdentities) {
  Config c = apply_text("api_keys = [\"first-key\", \"second-key\"]\n");
  ASSERT_EQ(c.api_keys.size(), 2u);
  EXPECT_EQ(c.api_keys[0].identity, "key1");
  EXPECT_EQ(c.api_keys[1].identity, "key2");
  EXPECT_EQ(c.api_keys[0].sha256, hash_raw_key("first-key"));
  EXPECT_EQ(c.api_keys[1].sha256, hash_raw_key("second-key"));
}

TEST(ConfigSchema, ApiKeyBlocksWithHashOrRawKey) {
  const std::string hex = "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824";  // "hello"
  Config c = apply_text("api_keys = [\"k\"]\napi_key \"alice\" {\n  hash = \"sha256:" + hex +
                        "\"\n}\napi_key \"bob@example.com\" { key = \"raw-bob\" }\n");
  ASSERT_EQ(c.api_keys.size(), 3u);
  EXPECT_EQ(c.api_keys[0].identity, "key1");
  EXPECT_EQ(c.api_keys[1].identity, "alice");
  EXPECT_EQ(c.api_keys[1].sha256, hash_raw_key("hello"));
  EXPECT_EQ(c.api_keys[2].identity, "bob@example.com");
  EXPECT_EQ(c.api_keys[2].sha256, hash_raw_key("raw-bob"));
}

TEST(ConfigSchema, ApiKeyErrorsNeverEchoTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"api_key \"a\" {\n  hash = \"sha256:SECRETbeef\"\n}\n",
       "c.hcl:2:10: 'hash' must be \"sha256:\" followed by 64 hex digits"},
      {"api_key \"a\" {\n  hash = \"md5:" + std::string(64, 'a') + "\"\n}\n",
       "c.hcl:2:10: 'hash' must be \"sha256:\" followed by 64 hex digits"},
      {"api_key \"a\" {\n  hash = \"sha256:" + std::string(63, 'a') + "g\"\n}\n",
       "c.hcl:2:10: 'hash' must be \"sha256:\" followed by 64 hex digits"},
      {"api_key \"a\" {\n  key = \"SECRET\"\n  hash = \"sha256:" + std::string(64, 'a') + "\"\n}\n",
       "c.hcl:2:3: block 'api_key' takes 'hash' or 'key', not both"},
      {"api_key \"a\" {\n}\n", "c.hcl:1:1: block 'api_key' needs 'hash' or 'key'"},
      {"api_key \"a\" {\n  key = \"\"\n}\n", "c.hcl:2:9: an API key must not be empty"},
      {"api_key \"a\" {\n  key = 5\n}\n", "c.hcl:2:9: 'key' must be a string, found integer"},
      {"api_key \"a\" {\n  key = \"SECRET\"\n  note = \"x\"\n}\n", "c.hcl:3:3: unknown key 'note' in block 'api_key'"},
      {"api_key {\n  key = \"SECRET\"\n}\n", "c.hcl:1:1: block 'api_key' needs exactly one label (the key's identity)"},
      {"api_key \"has space\" {\n  key = \"SECRET\"\n}\n",
       "c.hcl:1:9: an API key identity must be 1..64 letters, digits, '.', '_', '-' or '@'"},
      {"api_keys = [\"SECRET\", \"\"]\n", "c.hcl:1:23: an API key must not be empty"},
      {"api_keys = [\"SECRET\", \"SECRET\"]\n", "c.hcl:1:23: duplicate API key (same key as 'key1')"},
      {"api_keys = [\"SECRET\"]\napi_key \"key1\" {\n  key = \"other\"\n}\n",
       "c.hcl:2:9: duplicate API key identity 'key1'"},
      {"api_key \"a\" {\n  key = \"SECRET\"\n}\napi_key \"b\" {\n  key = \"SECRET\"\n}\n",
       "c.hcl:4:1: duplicate API key (same key as 'a')"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string msg = apply_error(text);
    EXPECT_EQ(msg, expected);
    EXPECT_EQ(msg.find("SECRET"), std::string::npos) << msg;
  }
}

TEST(ConfigSchema, EncryptedModelKeys) {
  Config d = apply_text("port = 1\n");
  EXPECT_FALSE(d.tee_mode);
  EXPECT_STREQ(to_string(d.model_decrypt), "memory");
  EXPECT_TRUE(d.model_key_source.env.empty());
  EXPECT_TRUE(d.model_key_source.file.empty());

  Config c = apply_text("tee_mode = true\nmodel_decrypt = \"file\"\nmodel_key_source = { env = \"MY_KEY\" }\n");
  EXPECT_TRUE(c.tee_mode);
  EXPECT_STREQ(to_string(c.model_decrypt), "file");
  EXPECT_EQ(c.model_key_source.env, "MY_KEY");
  EXPECT_STREQ(to_string(apply_text("in_memory_decrypt = true\n").model_decrypt), "memory");
  EXPECT_STREQ(to_string(apply_text("in_memory_decrypt = false\n").model_decrypt), "file");
  Config f = apply_text("model_key_source = { file = \"~/keys/m.key\" }\n");
  EXPECT_EQ(f.model_key_source.file, "/home/tester/keys/m.key");
  EXPECT_TRUE(f.model_key_source.env.empty());

  EXPECT_STREQ(to_string(apply_text("model_decrypt = \"stream\"\n").model_decrypt), "stream");
  EXPECT_EQ(apply_error("model_decrypt = \"disk\"\n"), "c.hcl:1:17: 'model_decrypt' must be one of file, memory, stream");
  EXPECT_EQ(apply_error("model_decrypt = \"file\"\nin_memory_decrypt = true\n"),
            "c.hcl:2:1: 'in_memory_decrypt' and 'model_decrypt' set the same setting (first at 1:1)");
  EXPECT_EQ(apply_error("model_key_source = { env = \"A\", file = \"/k\" }\n"),
            "c.hcl:1:20: 'model_key_source' must be { env = \"VARIABLE\" } or { file = \"PATH\" }");
  EXPECT_EQ(apply_error("model_key_source = { key = \"00\" }\n"),
            "c.hcl:1:22: 'model_key_source' must be { env = \"VARIABLE\" } or { file = \"PATH\" }");
  EXPECT_EQ(apply_error("model_key_source = { env = \"1-bad\" }\n"),
            "c.hcl:1:28: 'model_key_source.env' must be a variable name (letters, digits, '_')");
  EXPECT_EQ(apply_error("model_key_source = { file = \"\" }\n"),
            "c.hcl:1:29: 'model_key_source.file' must not be empty");
}

TEST(ConfigSchema, HomeExpandsTilde) {
  EXPECT_EQ(apply_text("home = \"~/power\"\n").home, "/home/tester/power");
  EXPECT_EQ(apply_text("home = \"~\"\n").home, "/home/tester");
  EXPECT_EQ(apply_text("home = \"rel/dir\"\n").home, "rel/dir");
  EXPECT_EQ(config_error_of([] { apply_text("home = \"~/x\"\n", {}); }),
            "c.hcl:1:8: 'home' uses '~' but HOME is not set");
}

TEST(ConfigSchema, KeyTableListsEveryKeyWithItsVariable) {
  std::map<std::string, KeyInfo> by_name;
  for (const auto& k : attribute_keys()) by_name.emplace(k.name, k);
  EXPECT_EQ(by_name.at("port").env, "A3S_POWER_PORT");
  EXPECT_TRUE(by_name.at("port").supported);
  EXPECT_EQ(by_name.at("api_keys").env, "A3S_POWER_API_KEYS");
  EXPECT_TRUE(by_name.at("tls_port").supported);
  EXPECT_FALSE(by_name.at("kv_cache_type").supported);
  EXPECT_EQ(by_name.at("model_hashes").env, "");  // objects cannot come from the environment
  EXPECT_EQ(by_name.size(), attribute_keys().size());  // names are unique
  EXPECT_EQ(by_name.size(), 45u);  // 44 settings (3 aliases) + 1 not supported yet
  EXPECT_EQ(by_name.at("vsock_port").env, "A3S_POWER_VSOCK_PORT");
  EXPECT_EQ(by_name.at("kv_cache_mb").env, "A3S_POWER_KV_CACHE_MB");
  EXPECT_TRUE(by_name.at("prompt_cache_max_entries").supported);
  EXPECT_EQ(by_name.at("prompt_cache_mb").env, "A3S_POWER_PROMPT_CACHE_MB");
  EXPECT_EQ(by_name.at("admin_api_keys").env, "A3S_POWER_ADMIN_API_KEYS");
  EXPECT_EQ(by_name.at("serve_store").env, "A3S_POWER_SERVE_STORE");
  EXPECT_TRUE(by_name.at("model_hashes").supported);
  EXPECT_EQ(by_name.at("model_signing_key").env, "A3S_POWER_MODEL_SIGNING_KEY");
  EXPECT_TRUE(by_name.at("weights").supported);
  EXPECT_EQ(by_name.at("memory_budget_mb").env, "A3S_POWER_MEMORY_BUDGET_MB");
}

}  // namespace
}  // namespace a3s::power::config::test
