// Admission to the paged KV cache in run_completion, on the engine runtime with a pool of 4 blocks:
// a request reserves the blocks its prompt and max_tokens can need before anything is evaluated; a
// second request that finds no free block waits and then runs (with the output it has alone), or
// gets queue_timeout when the wait exceeds kv_wait; cancelled requests give their blocks back
// (in use and reserved back to zero); and the model's prompt-cache entries are evicted to make room.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>

#include "runtime/completion.h"
#include "runtime/engine_runtime.h"
#include "support/gguf_builder.h"

namespace a3s::power::runtime {
namespace kv_admission_test {

using namespace std::chrono_literals;

// Holds the generation at its first delta until `go` is raised.
struct Sink final : CompletionSink {
  void started(std::span<const Token>) override {}
  bool delta(std::string_view) override {
    in_delta = true;
    while (gated && !go.load()) std::this_thread::yield();
    return true;
  }
  void finished(const CompletionResult& r) override {
    result = r;
    done = true;
  }
  void failed(const Error& e) override { error.emplace(e); }
  bool gated = false;
  std::atomic<bool> go{false}, in_delta{false};
  CompletionResult result;
  std::atomic<bool> done{false};
  std::optional<Error> error;
};

std::shared_ptr<const ModelRuntime> load_with_blocks(int64_t blocks) {
  const std::string path = testing::model_path("stories260K");
  EngineRuntimeOptions o;
  o.n_threads = 2;
  o.n_ctx = 128;
  const uint64_t block = load_engine_runtime("probe", path, o)->kv_cache_stats().block_bytes;
  o.kv_cache_bytes = static_cast<uint64_t>(blocks) * block;
  return load_engine_runtime("stories", path, o);
}

CompletionRequest request(int max_tokens, std::optional<std::string> key = std::nullopt) {
  CompletionRequest r;
  r.model = "stories";
  r.prompt = "Once upon a time there was a girl";
  r.max_tokens = max_tokens;
  r.sampling.temperature = 0;
  r.cache_key = std::move(key);
  r.cache_endpoint = "/v1/completions";
  return r;
}

TEST(KvAdmission, ARequestWaitsForBlocksThenRunsAsItWouldAlone) {
  auto model = load_with_blocks(4);
  ASSERT_EQ(model->kv_cache_stats().blocks_total, 4);
  Slot alone_slot(9);
  std::atomic<bool> no{false};
  Sink alone;
  run_completion(alone_slot, model, request(20), no, alone, nullptr);
  ASSERT_TRUE(alone.done);

  Slot a_slot(0), b_slot(1);
  Sink a;
  a.gated = true;
  std::thread ta([&] { run_completion(a_slot, model, request(100), no, a, nullptr); });  // all 4 blocks
  while (!a.in_delta) std::this_thread::yield();
  EXPECT_EQ(model->kv_cache_stats().blocks_in_use + model->kv_cache_stats().blocks_reserved, 4);

  Sink b;
  std::thread tb([&] { run_completion(b_slot, model, request(20), no, b, nullptr); });
  while (model->kv_cache_stats().waiting == 0) std::this_thread::yield();
  EXPECT_FALSE(b.done.load()) << "no block is free: the second request waits";
  a.go = true;
  ta.join();
  tb.join();
  ASSERT_TRUE(a.done) << (a.error ? a.error->what() : "");
  ASSERT_TRUE(b.done) << (b.error ? b.error->what() : "");
  EXPECT_EQ(b.result.text, alone.result.text);
  EXPECT_EQ(model->kv_cache_stats().blocks_in_use, 0) << "every request's blocks are back";
  EXPECT_EQ(model->kv_cache_stats().blocks_reserved, 0);
}

TEST(KvAdmission, AWaitLongerThanKvWaitIsAQueueTimeoutAndCancelledRequestsFreeTheirBlocks) {
  auto model = load_with_blocks(4);
  Slot a_slot(0), b_slot(1);
  std::atomic<bool> cancel_a{false}, no{false};
  Sink a;
  a.gated = true;
  std::thread ta([&] { run_completion(a_slot, model, request(100), cancel_a, a, nullptr); });
  while (!a.in_delta) std::this_thread::yield();

  CompletionRequest rb = request(20);
  rb.kv_wait = 30ms;
  Sink b;
  run_completion(b_slot, model, rb, no, b, nullptr);
  ASSERT_TRUE(b.error.has_value());
  EXPECT_EQ(b.error->kind(), codes::kQueueTimeout);
  EXPECT_EQ(model->kv_cache_stats().waiting, 0);

  // A cancelled wait gives up without holding anything.
  std::atomic<bool> cancel_c{false};
  Sink c;
  std::thread tc([&] { run_completion(b_slot, model, request(20), cancel_c, c, nullptr); });
  while (model->kv_cache_stats().waiting == 0) std::this_thread::yield();
  cancel_c = true;
  tc.join();
  ASSERT_TRUE(c.error.has_value());
  EXPECT_EQ(c.error->kind(), codes::kCancelled);

  cancel_a = true;  // the running request is cancelled (a client disconnect raises the same flag)
  a.go = true;
  ta.join();
  ASSERT_TRUE(a.done);
  EXPECT_EQ(a.result.finish, FinishReason::Cancelled);
  EXPECT_EQ(model->kv_cache_stats().blocks_in_use, 0);
  EXPECT_EQ(model->kv_cache_stats().blocks_reserved, 0);
}

TEST(KvAdmission, PromptCacheEntriesGiveTheirBlocksBackUnderPressure) {
  auto model = load_with_blocks(4);
  PromptCacheOptions o;
  o.max_entries = 4;
  o.sweeper = false;
  PromptCache cache(o);
  Slot slot(0);
  std::atomic<bool> no{false};
  Sink keyed;
  run_completion(slot, model, request(20, "k"), no, keyed, &cache);
  ASSERT_TRUE(keyed.done);
  ASSERT_EQ(cache.stats().resident, 1u);
  EXPECT_GT(model->kv_cache_stats().blocks_in_use, 0) << "the entry holds blocks";

  Sink big;
  run_completion(slot, model, request(110), no, big, &cache);  // needs all 4 blocks
  ASSERT_TRUE(big.done) << (big.error ? big.error->what() : "");
  EXPECT_EQ(cache.stats().resident, 0u);
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(model->kv_cache_stats().blocks_in_use, 0);
}

}  // namespace kv_admission_test
}  // namespace a3s::power::runtime
