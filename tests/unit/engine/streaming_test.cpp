// Layer streaming: the streaming weight source (prefetch order, out-of-order access, row reads, read
// errors), the growing KV cache, the memory plan under a budget and the option parsers.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "engine/hparams.h"
#include "engine/kv_cache.h"
#include "engine/memory_plan.h"
#include "gguf/gguf_file.h"
#include "gguf_patch.h"
#include "kernels/kernels.h"
#include "weights/mapped_weights.h"
#include "weights/streaming_weights.h"

namespace a3s::power {
namespace {

using weights::FileByteReader;
using weights::MappedWeights;
using weights::StreamingWeights;

// A reader over a file that counts reads and can be made to fail.
class CountingReader final : public weights::ByteReader {
 public:
  explicit CountingReader(const std::string& path) : inner_(path) {}
  void read(uint64_t offset, std::span<uint8_t> dst) override {
    ++reads;
    if (fail) throw Error(codes::kIo, "injected read failure");
    inner_.read(offset, dst);
  }
  uint64_t size() const override { return inner_.size(); }
  std::atomic<int> reads{0};
  std::atomic<bool> fail{false};

 private:
  FileByteReader inner_;
};

struct Sources {
  std::shared_ptr<gguf::File> file = gguf::File::open(testing::model_path("stories260K"));
  MappedWeights mapped{file};
  CountingReader* reader = nullptr;
  std::unique_ptr<StreamingWeights> streamed;
  Sources() {
    std::vector<uint64_t> offsets;
    for (const auto& t : file->tensors()) offsets.push_back(t.file_offset);
    auto r = std::make_unique<CountingReader>(testing::model_path("stories260K"));
    reader = r.get();
    streamed = std::make_unique<StreamingWeights>(weights::tensor_descs(*file), offsets, std::move(r));
  }
  std::vector<uint8_t> mapped_bytes(int id) {
    const uint8_t* p = mapped.acquire_layer(mapped.desc(id).layer).data(id);
    return {p, p + mapped.desc(id).size_bytes};
  }
};

TEST(StreamingWeights, EveryTensorInAndOutOfOrderHasTheFileBytes) {
  Sources s;
  std::vector<int> order;
  for (int il = 0; il < s.streamed->n_layers(); ++il)
    for (const char* n : {"attn_norm.weight", "attn_q.weight", "attn_k.weight", "ffn_down.weight"})
      order.push_back(*s.streamed->find("blk." + std::to_string(il) + "." + n));
  s.streamed->set_access_order(order);
  // In order twice (the prefetch wraps to the next pass), then backwards (no prefetch hits).
  for (int pass = 0; pass < 2; ++pass)
    for (int id : order) {
      auto lease = s.streamed->acquire_layer(s.streamed->desc(id).layer);
      const uint8_t* p = lease.data(id);
      ASSERT_EQ(std::memcmp(p, s.mapped_bytes(id).data(), s.streamed->desc(id).size_bytes), 0) << id;
    }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    auto lease = s.streamed->acquire_layer(s.streamed->desc(*it).layer);
    ASSERT_EQ(std::memcmp(lease.data(*it), s.mapped_bytes(*it).data(), s.streamed->desc(*it).size_bytes), 0);
  }
  uint64_t largest = 0;
  for (const auto& d : s.streamed->tensors())
    if (d.layer >= 0) largest = std::max(largest, d.size_bytes);
  EXPECT_EQ(s.streamed->buffer_bytes(), largest);
  EXPECT_GT(s.streamed->bytes_read(), 0u);
}

TEST(StreamingWeights, RowsAreCopiedIntoScratch) {
  Sources s;
  const int embd = *s.streamed->find("token_embd.weight");
  std::vector<uint8_t> scratch(3 * s.streamed->desc(embd).row_bytes);
  const uint8_t* p = s.streamed->read_rows(embd, 7, 3, scratch);
  EXPECT_EQ(p, scratch.data());
  EXPECT_EQ(std::memcmp(p, s.mapped.read_rows(embd, 7, 3, {}), scratch.size()), 0);
  EXPECT_TRUE(s.streamed->rows_need_scratch());
  EXPECT_THROW(s.streamed->read_rows(embd, 511, 2, scratch), Error);
  std::vector<uint8_t> small(1);
  EXPECT_THROW(s.streamed->read_rows(embd, 0, 1, small), Error);
}

TEST(StreamingWeights, ReadErrorsSurfaceAsIoErrorsAndRecover) {
  Sources s;
  const int q = *s.streamed->find("blk.0.attn_q.weight");
  s.reader->fail = true;
  try {
    auto lease = s.streamed->acquire_layer(0);
    lease.data(q);
    FAIL() << "expected an io_error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), codes::kIo);
  }
  s.reader->fail = false;
  auto lease = s.streamed->acquire_layer(0);
  EXPECT_EQ(std::memcmp(lease.data(q), s.mapped_bytes(q).data(), s.streamed->desc(q).size_bytes), 0);
}

TEST(StreamingWeights, ATruncatedFileIsAnIoErrorNotACrash) {
  testing::TempDir dir;
  const std::string path = dir.file("m.gguf");
  std::filesystem::copy_file(testing::model_path("stories260K"), path);
  auto model = Model::load(path, {.n_threads = 1, .weights = WeightsMode::Stream});
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  Context ctx(model, {.n_ctx = 16});
  const Token t[] = {1, 403};
  try {
    ctx.eval(t);
    FAIL() << "expected an io_error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), codes::kIo);
  }
  EXPECT_EQ(ctx.n_past(), 0);
}

TEST(KvCache, GrowsInChunksAndKeepsEntries) {
  engine::KvCache kv(2, 1000, 8);
  EXPECT_EQ(kv.bytes(), 0u);
  kv.reserve(3);
  EXPECT_EQ(kv.capacity(), engine::kKvChunk);
  std::vector<float> k(8), v(8);
  for (int pos = 0; pos < 3; ++pos) {
    for (int d = 0; d < 8; ++d) k[d] = static_cast<float>(pos * 10 + d), v[d] = -k[d];
    kv.store(1, pos, k.data(), v.data());
  }
  kv.reserve(300);
  EXPECT_EQ(kv.capacity(), 512);
  kv.reserve(900);
  EXPECT_EQ(kv.capacity(), 1024) << "capped at n_ctx rounded up to 32";
  EXPECT_EQ(kv.bytes(), 2u * 2 * 1024 * 8 * 2);
  for (int pos = 0; pos < 3; ++pos)
    for (int d = 0; d < 8; ++d) {
      EXPECT_EQ(kernels::fp16_to_fp32(kv.k_row(1, pos)[d]), static_cast<float>(pos * 10 + d));
      EXPECT_EQ(kernels::fp16_to_fp32(kv.v_col(1, d)[pos]), -static_cast<float>(pos * 10 + d));
    }
}

TEST(MemoryBudget, CapsTheContextAndPicksStreaming) {
  const std::string path = testing::model_path("stories260K");
  auto resident = Model::load(path, {.n_threads = 1, .memory_budget = 64ull << 20});
  EXPECT_EQ(resident->info().weights, WeightsMode::Resident);
  EXPECT_GT(resident->info().n_ctx_max, 0);
  EXPECT_EQ(resident->info().memory_budget, 64ull << 20);

  auto streamed = Model::load(path, {.n_threads = 1, .weights = WeightsMode::Stream, .memory_budget = 64ull << 20});
  EXPECT_EQ(streamed->info().weights, WeightsMode::Stream);
  EXPECT_GT(streamed->info().n_ctx_max, 0);
  const int limit = streamed->info().n_ctx_max;
  EXPECT_EQ(limit % 32, 0);
  Context dflt(streamed, {});
  const int train = streamed->info().n_ctx_train;
  EXPECT_EQ(dflt.n_ctx(), std::min(limit, train > 0 ? std::min(train, 4096) : 4096)) << "the default is capped";
  EXPECT_THROW(Context(streamed, {.n_ctx = limit + 32}), Error);

  // A budget below what the process already uses cannot fit anything: a clear error naming the need.
  try {
    Model::load(path, {.n_threads = 1, .memory_budget = 1 << 20});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), codes::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("needs at least"), std::string::npos) << e.what();
  }
  auto none = Model::load(path, {.n_threads = 1});
  EXPECT_EQ(none->info().n_ctx_max, 0);
  EXPECT_EQ(none->info().weights, WeightsMode::Resident);
}

TEST(MemoryBudget, GenerationEndsAtTheBudgetedContext) {
  const std::string path = testing::model_path("stories260K");
  auto m = Model::load(path, {.n_threads = 1, .weights = WeightsMode::Stream, .memory_budget = 64ull << 20});
  Context ctx(m, {.n_ctx = 64});
  std::vector<Token> t(64, 403);
  t[0] = 1;
  EXPECT_NO_THROW(ctx.eval(t));
  const Token more = 403;
  try {
    ctx.eval(std::span<const Token>(&more, 1));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), codes::kContextLengthExceeded);
  }
}

TEST(ModelOptions, ParsersAcceptSizesAndModes) {
  EXPECT_EQ(parse_memory_size("256M"), 256ull << 20);
  EXPECT_EQ(parse_memory_size("256MiB"), 256ull << 20);
  EXPECT_EQ(parse_memory_size("1.5G"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("4096"), 4096u);
  EXPECT_EQ(parse_memory_size("2k"), 2048u);
  for (const char* bad : {"", "0", "-1M", "12X", "M", "1e400", "nan", "5 M", "3MBB"})
    EXPECT_FALSE(parse_memory_size(bad).has_value()) << bad;
  EXPECT_EQ(parse_weights_mode("stream"), WeightsMode::Stream);
  EXPECT_EQ(parse_weights_mode("resident"), WeightsMode::Resident);
  EXPECT_EQ(parse_weights_mode("auto"), WeightsMode::Auto);
  EXPECT_FALSE(parse_weights_mode("Stream").has_value());
  EXPECT_EQ(to_string(WeightsMode::Stream), "stream");
}

}  // namespace
}  // namespace a3s::power
