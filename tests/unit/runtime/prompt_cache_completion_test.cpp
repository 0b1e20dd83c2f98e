// run_completion with a prompt_cache_key on the engine runtime: the second request with the same key
// reuses the cached prefix (cached_tokens), gives the same greedy text and tokens as an uncached run,
// a longer prompt sharing the prefix is a partial hit, another identity misses; and a key on a path
// that cannot honour it (no cache, or a runtime without snapshots) fails with prompt_cache_unsupported.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>

#include "runtime/completion.h"
#include "runtime/engine_runtime.h"
#include "support/fake_runtime.h"
#include "support/gguf_builder.h"

namespace a3s::power::runtime {
namespace prompt_cache_completion_test {

struct Sink final : CompletionSink {
  void started(std::span<const Token>) override {}
  bool delta(std::string_view) override { return true; }
  void finished(const CompletionResult& r) override {
    result = r;
    done = true;
  }
  void failed(const Error& e) override { error.emplace(e); }
  CompletionResult result;
  bool done = false;
  std::optional<Error> error;
};

EngineRuntimeOptions engine_options(int n_ctx) {
  EngineRuntimeOptions o;
  o.n_threads = 2;
  o.n_ctx = n_ctx;
  return o;
}

CompletionRequest request(const std::string& prompt, std::optional<std::string> key, const std::string& identity) {
  CompletionRequest r;
  r.model = "stories";
  r.prompt = prompt;
  r.max_tokens = 12;
  r.sampling.temperature = 0;
  r.cache_key = std::move(key);
  r.cache_identity = identity;
  r.cache_endpoint = "/v1/completions";
  return r;
}

Sink run(Slot& slot, const std::shared_ptr<const ModelRuntime>& m, const CompletionRequest& r, PromptCache* c) {
  std::atomic<bool> cancel{false};
  Sink s;
  run_completion(slot, m, r, cancel, s, c);
  return s;
}

TEST(PromptCacheCompletion, HitsReuseThePrefixAndKeepTheOutput) {
  auto model = load_engine_runtime("stories", testing::model_path("stories260K"), engine_options(256));
  PromptCacheOptions o;
  o.max_entries = 4;
  o.sweeper = false;
  PromptCache cache(o);
  Slot slot(0);
  const std::string prompt = "Once upon a time there was a little girl named Lily who loved to play outside";

  Sink plain = run(slot, model, request(prompt, std::nullopt, "alice"), nullptr);
  ASSERT_TRUE(plain.done);
  EXPECT_FALSE(plain.result.cache_used);

  Sink miss = run(slot, model, request(prompt, "k", "alice"), &cache);
  ASSERT_TRUE(miss.done) << (miss.error ? miss.error->what() : "");
  EXPECT_TRUE(miss.result.cache_used);
  EXPECT_EQ(miss.result.cached_tokens, 0);
  EXPECT_EQ(cache.stats().resident, 1u);

  Sink hit = run(slot, model, request(prompt, "k", "alice"), &cache);
  ASSERT_TRUE(hit.done);
  EXPECT_EQ(hit.result.cached_tokens, hit.result.prompt_tokens - 1);
  EXPECT_EQ(hit.result.text, plain.result.text) << "cached and uncached greedy output are identical";
  EXPECT_EQ(miss.result.text, plain.result.text);

  Sink partial = run(slot, model, request(prompt + " in the sun", "k", "alice"), &cache);
  ASSERT_TRUE(partial.done);
  EXPECT_GT(partial.result.cached_tokens, 0);
  EXPECT_LT(partial.result.cached_tokens, partial.result.prompt_tokens - 1);
  Sink partial_plain = run(slot, model, request(prompt + " in the sun", std::nullopt, "alice"), nullptr);
  EXPECT_EQ(partial.result.text, partial_plain.result.text);

  Sink other = run(slot, model, request(prompt, "k", "bob"), &cache);
  ASSERT_TRUE(other.done);
  EXPECT_EQ(other.result.cached_tokens, 0) << "another identity's key never hits";

  const PromptCacheStats st = cache.stats();
  EXPECT_EQ(st.requests, 4u);
  EXPECT_EQ(st.hits, 2u);
  EXPECT_EQ(st.misses, 2u);
  EXPECT_GT(st.evaluated_tokens, 0u);
}

TEST(PromptCacheCompletion, AKeyThatCannotBeHonouredIsRefused) {
  auto engine = load_engine_runtime("stories", testing::model_path("stories260K"), engine_options(128));
  Slot slot(0);
  Sink no_cache = run(slot, engine, request("Once upon a time", "k", "alice"), nullptr);
  ASSERT_TRUE(no_cache.error);
  EXPECT_EQ(no_cache.error->kind(), codes::kPromptCacheUnsupported);

  PromptCacheOptions o;
  o.sweeper = false;
  PromptCache cache(o);
  testing::FakeOptions fo;
  auto fake = std::make_shared<testing::FakeRuntime>("fake", fo);
  Sink no_snapshots = run(slot, fake, request("Once upon a time", "k", "alice"), &cache);
  ASSERT_TRUE(no_snapshots.error);
  EXPECT_EQ(no_snapshots.error->kind(), codes::kPromptCacheUnsupported);
}

}  // namespace prompt_cache_completion_test
}  // namespace a3s::power::runtime
