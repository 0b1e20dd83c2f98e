// PackedWeights (engine/packed_weights.h): on an ISA that packs a type at load (Q4_0, Q4_K, Q6_K on avx512) a
// resident model's block matrices of that type are packed and nothing else is; the rows stay
// readable after their pages are dropped; the memory plan's extra bytes are the panels' excess; and
// the logits (prompt and decode steps) are bitwise those of the rows — streamed (never packed), on
// another ISA, and after switching the ISA under a model packed for avx512.
#include <gtest/gtest.h>

#include <sys/mman.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "engine/memory_plan.h"
#include "engine/packed_weights.h"
#include "kernels/kernels.h"
#include "support/isa_guard.h"
#include "model/gguf/gguf_file.h"
#include "model/sources/mapped_weights.h"
#include "support/gguf_builder.h"
#include "support/synth_models.h"

namespace a3s::power::packed_weights_test {
namespace {


constexpr const char* kModel = "tiny-llama-Q4_0";

// A shared test model, or a synth preset as "<preset>:<type>" (phi3's fused QKV and gate/up
// matrices are multiplied by parts, each from its own panels; qwen3moe's experts plane by plane).
// The bytes of block tensor `id` in a mapped source (a stacked one from its first plane on: the
// planes follow each other in the mapping).
const uint8_t* block_bytes(weights::MappedWeights& source, int id) {
  const weights::TensorDesc& d = source.desc(id);
  const weights::LayerLease lease = source.acquire_layer(d.layer);
  return d.stacked() ? lease.plane(id, 0) : lease.data(id);
}

std::string path_of(const std::string& name) {
  const size_t colon = name.find(':');
  if (colon == std::string::npos) return testing::model_path(name);
  return testing::synth_preset_model(name.substr(0, colon), name.substr(colon + 1));
}

class PackedModels : public ::testing::TestWithParam<const char*> {};

TEST_P(PackedModels, PacksTheBlockMatricesOfThePackedTypesOnly) {
  if (!kernels::isa_supported(kernels::Isa::Avx512)) GTEST_SKIP() << "no AVX-512 VNNI on this CPU: nothing packs";
  kernels::IsaGuard isa(kernels::Isa::Avx512);
  auto file = gguf::File::open(path_of(GetParam()));
  weights::MappedWeights source(file);
  // A copy of every tensor's bytes, to compare with the rows after their pages are dropped.
  std::vector<std::vector<uint8_t>> before;
  for (int id = 0; id < static_cast<int>(source.tensors().size()); ++id) {
    const weights::TensorDesc& d = source.desc(id);
    const uint8_t* p = d.layer >= 0 ? block_bytes(source, id) : source.read_rows(id, 0, d.n_rows(), {});
    before.emplace_back(p, p + d.size_bytes);
  }
  // The output head: output.weight, or token_embd.weight when the embeddings are tied.
  const int head = source.find("output.weight").value_or(source.find("token_embd.weight").value_or(-1));
  ASSERT_GE(head, 0);
  ThreadPool pool(2);
  engine::PackedWeights packed(source, pool, head);
  uint64_t panels = 0, rows = 0, paged = 0;
  int n_packed = 0, n_stacked = 0;
  for (int id = 0; id < static_cast<int>(source.tensors().size()); ++id) {
    const weights::TensorDesc& d = source.desc(id);
    const bool packed_type = d.type == TensorType::Q4_0 || d.type == TensorType::Q8_0 || d.type == TensorType::Q4_K ||
                             d.type == TensorType::Q6_K;
    // Block matrices (experts too, plane by plane) and the output head.
    const bool want = packed_type && (d.layer >= 0 ? d.n_dims == 2 || d.n_dims == 3 : id == head);
    const engine::PackedWeights::Tensor* t = packed.find(id);
    ASSERT_EQ(t != nullptr, want) << d.name;
    const uint8_t* p = d.layer >= 0 ? block_bytes(source, id) : source.read_rows(id, 0, d.n_rows(), {});
    EXPECT_EQ(std::memcmp(p, before[static_cast<size_t>(id)].data(), d.size_bytes), 0) << d.name;
    if (t == nullptr) continue;
    ++n_packed;
    EXPECT_EQ(t->isa, kernels::Isa::Avx512);
    const uint64_t n = kernels::packed_weight_bytes(d.type, d.ne[1], d.ne[0]) * static_cast<uint64_t>(d.ne[2]);
    EXPECT_EQ(t->plane_bytes, kernels::packed_weight_bytes(d.type, d.ne[1], d.ne[0])) << d.name;
    if (d.stacked()) ++n_stacked;
    panels += n;
    paged += (n + 4095) / 4096 * 4096;
    rows += d.size_bytes;
  }
  EXPECT_GT(n_packed, 0);
  if (std::string(GetParam()) == "tiny-llama-Q4_K_M") {
    EXPECT_NE(packed.find(head), nullptr);  // its Q6_K head is packed
  }
  if (std::string(GetParam()).find("moe") != std::string::npos) {
    EXPECT_GT(n_stacked, 0);  // the experts
  }
  EXPECT_EQ(packed.bytes(), panels);
  // The extra bytes count the panels as they are mapped: each tensor's on whole pages, all of them
  // in one buffer of whole 2 MiB huge pages.
  const uint64_t huge = crypto::LockedBuffer::kHugePageBytes;
  EXPECT_EQ(engine::PackedWeights::layout(source.tensors(), head, nullptr), paged);
  EXPECT_EQ(engine::PackedWeights::extra_bytes(source.tensors(), head), (paged + huge - 1) / huge * huge - rows);
  EXPECT_EQ(packed.find(-1), nullptr);
  EXPECT_EQ(packed.find(static_cast<int>(source.tensors().size())), nullptr);
}

// VmLck of this process, in KiB.
uint64_t locked_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmLck:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

// Under a memory lock (tee_mode locks the whole process, MCL_ONFAULT) the packing faults the rows in
// locked; the pages are unlocked and dropped after packing, not kept beside the panels.
TEST(PackedWeights, LockedRowsAreUnlockedAndDroppedAfterPacking) {
  if (!kernels::isa_supported(kernels::Isa::Avx512)) GTEST_SKIP() << "no AVX-512 VNNI on this CPU: nothing packs";
  kernels::IsaGuard isa(kernels::Isa::Avx512);
  auto file = gguf::File::open(testing::synth_preset_model("qwen3-tiny", "Q4_0", 256));
  weights::MappedWeights source(file);
  const uint64_t before = locked_kib();
  uint64_t packed_rows = 0;
  for (int id = 0; id < static_cast<int>(source.tensors().size()); ++id) {
    const weights::TensorDesc& d = source.desc(id);
    if (!engine::PackedWeights::packs(source.tensors(), id, -1)) continue;
    if (mlock(block_bytes(source, id), d.size_bytes) != 0)
      GTEST_SKIP() << "mlock refused (RLIMIT_MEMLOCK): cannot lock the rows here";
    packed_rows += d.size_bytes;
  }
  ASSERT_GT(packed_rows, 256u << 10) << "the packed matrices must span many pages";
  const uint64_t locked = locked_kib();
  // AddressSanitizer's mlock does nothing (and says it succeeded).
  if (locked < before + packed_rows / 1024 / 2) GTEST_SKIP() << "mlock locks nothing here (a sanitizer build)";
  ThreadPool pool(2);
  engine::PackedWeights packed(source, pool, -1);
  // The panels are locked too (when RLIMIT_MEMLOCK allows: their whole buffer, the rows plus the
  // extra bytes); the rows are not: without the unlock the count would be the rows plus the panels.
  const uint64_t panels = packed_rows + engine::PackedWeights::extra_bytes(source.tensors(), -1);
  EXPECT_LT(locked_kib(), before + (panels + packed_rows / 2) / 1024);
  munlockall();
}

// The memory plan counts the panels' extra bytes as resident weights, and only there: a budget
// that fits the rows alone no longer fits them with the extra, and streaming ignores it.
TEST(PackedWeights, TheMemoryPlanCountsTheExtraBytes) {
  auto file = gguf::File::open(testing::model_path(kModel));
  const auto descs = weights::tensor_descs(*file);
  int embd = -1;
  for (size_t i = 0; i < descs.size(); ++i)
    if (descs[i].name == "token_embd.weight") embd = static_cast<int>(i);
  ASSERT_GE(embd, 0);
  engine::HParams hp;
  hp.n_vocab = static_cast<int>(descs[static_cast<size_t>(embd)].ne[1]);
  hp.n_embd = 64;
  hp.n_layer = 2;
  hp.n_ff = 128;
  hp.n_head = 4;
  hp.n_head_kv = 4;
  hp.head_dim = 16;
  ModelOptions opts;
  opts.weights = WeightsMode::Resident;
  const uint64_t extra = 5ull << 20;
  const engine::MemoryPlan rows = engine::plan_memory(hp, descs, embd, embd, opts, 2, 0);
  const engine::MemoryPlan with = engine::plan_memory(hp, descs, embd, embd, opts, 2, 0, extra);
  EXPECT_EQ(with.weight_bytes, rows.weight_bytes + extra);
  opts.weights = WeightsMode::Stream;
  EXPECT_EQ(engine::plan_memory(hp, descs, embd, embd, opts, 2, 0, extra).weight_bytes,
            engine::plan_memory(hp, descs, embd, embd, opts, 2, 0).weight_bytes);
  // A budget the rows just fit (their least context) refuses the extra.
  opts.weights = WeightsMode::Resident;
  opts.memory_budget = rows.weight_bytes + rows.activation_bytes + rows.bytes_per_position * 256 + (1ull << 20);
  EXPECT_NO_THROW(engine::plan_memory(hp, descs, embd, embd, opts, 2, 0));
  EXPECT_THROW(engine::plan_memory(hp, descs, embd, embd, opts, 2, 0, extra), Error);
}

// The logits after a 37-token prompt and after each of five decode steps.
std::vector<std::vector<float>> run(const std::shared_ptr<Model>& m) {
  Context ctx(m, {.n_ctx = 64});
  std::vector<Token> prompt;
  for (int i = 0; i < 37; ++i) prompt.push_back(1 + (i * 7919) % (m->info().n_vocab - 1));
  std::vector<std::vector<float>> out;
  auto l = ctx.eval(prompt);
  out.emplace_back(l.begin(), l.end());
  for (int i = 0; i < 5; ++i) {
    const Token t = 1 + (i * 104729) % (m->info().n_vocab - 1);
    auto d = ctx.eval(std::span<const Token>(&t, 1));
    out.emplace_back(d.begin(), d.end());
  }
  return out;
}

std::shared_ptr<Model> load(const char* name, WeightsMode mode) {
  return Model::load(path_of(name), {.n_threads = 2, .n_batch = 16, .weights = mode});
}

TEST_P(PackedModels, LogitsAreBitwiseThoseOfTheRows) {
  if (!kernels::isa_supported(kernels::Isa::Avx512)) GTEST_SKIP() << "no AVX-512 VNNI on this CPU: nothing packs";
  std::vector<std::vector<float>> packed, streamed, other_isa, switched;
  {
    kernels::IsaGuard isa(kernels::Isa::Avx512);
    auto resident = load(GetParam(), WeightsMode::Resident);
    packed = run(resident);
    streamed = run(load(GetParam(), WeightsMode::Stream));
    kernels::IsaGuard avx2(kernels::Isa::Avx2);  // the packed model's matrices now come from its rows
    switched = run(resident);
  }
  {
    kernels::IsaGuard isa(kernels::Isa::Avx2);
    other_isa = run(load(GetParam(), WeightsMode::Resident));
  }
  ASSERT_EQ(packed.size(), 6u);
  for (size_t i = 0; i < packed.size(); ++i) {
    const size_t n = packed[i].size() * sizeof(float);
    EXPECT_EQ(std::memcmp(packed[i].data(), streamed[i].data(), n), 0) << "step " << i;
    EXPECT_EQ(std::memcmp(packed[i].data(), other_isa[i].data(), n), 0) << "step " << i;
    EXPECT_EQ(std::memcmp(packed[i].data(), switched[i].data(), n), 0) << "step " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(PackedTypes, PackedModels, ::testing::Values("tiny-llama-Q4_0", "tiny-llama-Q4_K_M", "tiny-llama-Q6_K", "tiny-llama-Q8_0", "phi3-tiny:Q4_0",
                                                                                 "qwen3moe-tiny:Q4_0"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == '-' || c == ':') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace a3s::power::packed_weights_test
