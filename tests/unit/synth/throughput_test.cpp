// Throughput statistics and the pp / tg measurement loops (correctness only: no timing thresholds).
#include <gtest/gtest.h>


#include "support/gguf_builder.h"
#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "base/process_memory.h"
#include "perf/memory_bandwidth.h"
#include "perf/throughput.h"

namespace a3s::power::perf {
namespace {

TEST(Throughput, MeanAndSampleStddev) {
  Throughput t;
  EXPECT_EQ(t.mean(), 0.0);
  t.tokens_per_s = {10.0};
  EXPECT_EQ(t.mean(), 10.0);
  EXPECT_EQ(t.stddev(), 0.0);
  t.tokens_per_s = {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0};
  EXPECT_DOUBLE_EQ(t.mean(), 5.0);
  EXPECT_NEAR(t.stddev(), 2.138089935, 1e-9);  // sqrt(32 / 7)
}

TEST(Throughput, MeasuresEveryRepetitionAndLeavesTheContextEmpty) {
  auto model = Model::load(testing::model_path("stories260K"), {.n_threads = 1});
  Context ctx(model, {.n_ctx = 64});
  const Throughput pp = measure_prefill(ctx, 40, 3, 1);
  EXPECT_EQ(pp.n_tokens, 40);
  ASSERT_EQ(pp.tokens_per_s.size(), 3u);
  for (double v : pp.tokens_per_s) EXPECT_GT(v, 0.0);
  EXPECT_EQ(ctx.n_past(), 0);
  const Throughput tg = measure_decode(ctx, 8, 2, 1);
  EXPECT_EQ(tg.tokens_per_s.size(), 2u);
  EXPECT_EQ(ctx.n_past(), 0);
}

TEST(Throughput, DecodeCallsAroundBeforeTheFirstRepetitionAndAfterEach) {
  auto model = Model::load(testing::model_path("stories260K"), {.n_threads = 1});
  Context ctx(model, {.n_ctx = 16});
  for (int reps : {1, 3}) {
    int calls = 0;
    const Throughput tg = measure_decode(ctx, 4, reps, 1, [&] { ++calls; });
    EXPECT_EQ(tg.tokens_per_s.size(), static_cast<size_t>(reps));
    EXPECT_EQ(calls, reps + 1);
  }
}

TEST(MemoryBandwidth, AReleasedBufferAndAResetPeakLeaveNoTraceInThePeakRss) {
  ThreadPool pool(1);
  BandwidthBuffer buffer(size_t{256} << 20);
  const uint64_t before = peak_rss_bytes();
  measure_read_bandwidth(pool, buffer, 1);
  EXPECT_GE(peak_rss_bytes(), before + (uint64_t{200} << 20));  // the buffer was resident
  buffer.release();
  ASSERT_TRUE(reset_peak_rss());
  EXPECT_LT(peak_rss_bytes(), before + (uint64_t{100} << 20));
  EXPECT_GT(measure_read_bandwidth(pool, buffer, 1).bytes_per_s, 0.0);  // usable after release
}

TEST(MemoryBandwidth, ReadsEveryThreadsShareAndReportsTheBest) {
  ThreadPool pool(2);
  const size_t bytes = (size_t{64} << 20) + 12345;
  BandwidthBuffer buffer(bytes);
  const MemoryBandwidth bw = measure_read_bandwidth(pool, buffer, 2);
  EXPECT_EQ(bw.threads, 2);
  // Whole 4 KiB pages per thread, never more than asked.
  EXPECT_EQ(bw.buffer_bytes % (2 * 4096), 0u);
  EXPECT_LE(bw.buffer_bytes, bytes);
  EXPECT_GT(bw.buffer_bytes, bytes - 2 * 4096);
  EXPECT_GT(bw.bytes_per_s, 0.0);
}

TEST(MemoryBandwidth, RejectsBuffersThatFitInCacheZeroRepetitionsAndImpossibleSizes) {
  ThreadPool pool(1);
  EXPECT_THROW(BandwidthBuffer(size_t{1} << 20), Error);
  BandwidthBuffer buffer(size_t{64} << 20);
  EXPECT_THROW(measure_read_bandwidth(pool, buffer, 0), Error);
  try {
    BandwidthBuffer impossible(size_t{1} << 62);
    FAIL() << "expected resource_exhausted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kResourceExhausted);
    EXPECT_NE(std::string(e.what()).find("bandwidth"), std::string::npos) << e.what();
  }
}

TEST(Throughput, RejectsBadArguments) {
  auto model = Model::load(testing::model_path("stories260K"), {.n_threads = 1});
  Context ctx(model, {.n_ctx = 16});
  EXPECT_THROW(measure_prefill(ctx, 0, 1, 1), Error);
  EXPECT_THROW(measure_prefill(ctx, 8, 0, 1), Error);
  EXPECT_THROW(measure_decode(ctx, 17, 1, 1), Error);  // does not fit the context
}

}  // namespace
}  // namespace a3s::power::perf
