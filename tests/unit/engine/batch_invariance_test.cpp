// Batch invariance of the forward pass (forward.h, step_batcher.h): a sequence's logits are bitwise
// the same whether it runs alone, is prefilled in chunks of 1, 7, 64 or 512 tokens, or shares its
// steps with other sequences that join and leave — on every ISA path this CPU has, resident and
// streamed, for every architecture (llama, qwen2, and on synth presets qwen3, qwen3moe, phi3, gemma3
// and llama with Mixtral-layout experts) and the IQ4 types. (BF16 weights are the documented exception: their multi-token matmul follows llama.cpp's
// prompt-processing order.)
#include <gtest/gtest.h>

#include <barrier>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "a3s/power/engine.h"
#include "engine/context_inspect.h"
#include "kernels/kernels.h"
#include "support/isa_guard.h"
#include "support/gguf_builder.h"
#include "support/synth_models.h"

namespace a3s::power {
namespace {

struct IsaCase {
  std::string model;
  kernels::Isa isa;
};

std::string case_name(const ::testing::TestParamInfo<IsaCase>& info) {
  std::string n = info.param.model + "_" + kernels::isa_name(info.param.isa);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

// Under ASan + UBSan (the sanitizer stage of scripts/run-tests.sh) the scalar path is about a hundred
// times slower than avx2, and these scalar cases took four fifths of that stage's time: there the
// scalar path runs on one model only (the forward pass's code under the sanitizers; each scalar
// kernel is under them in kernels_test), and on every model in the Release build's run.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

std::vector<IsaCase> invariance_cases() {
  std::vector<IsaCase> cases;
  for (const char* m : {"stories260K", "tiny-llama-f32", "tiny-llama-F16", "tiny-llama-Q8_0", "tiny-llama-Q4_0",
                        "tiny-llama-Q4_1", "tiny-llama-Q5_0", "tiny-llama-Q5_1", "tiny-llama-Q2_K",
                        "tiny-llama-Q3_K_M", "tiny-llama-Q4_K_M", "tiny-llama-Q5_K_M", "tiny-llama-Q6_K",
                        "tiny-qwen2-Q4_K_M", "tiny-qwen2-Q8_0", "qwen3-tiny:Q8_0", "phi3-tiny:Q4_K_M",
                        "gemma3-tiny:Q8_0", "qwen3-tiny:IQ4_NL", "qwen3-tiny@256:IQ4_XS",
                        "qwen3moe-tiny:Q8_0", "mixtral-tiny:Q4_K_M"})
    // avxvnni runs the avx512 path's 256-bit kernels (one source); the kernel and parity tests cover it.
    for (kernels::Isa isa : {kernels::Isa::Scalar, kernels::Isa::Avx2, kernels::Isa::Avx512})
      if (kernels::isa_supported(isa) && (isa != kernels::Isa::Scalar || !kSanitized || m == std::string("stories260K")))
        cases.push_back({m, isa});
  return cases;
}


std::vector<Token> seeded_tokens(int n, int n_vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(1, n_vocab - 1);
  std::vector<Token> t(static_cast<size_t>(n));
  for (auto& x : t) x = d(rng);
  return t;
}

bool bitwise_equal(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A shared test model by name, or a synth preset as "<preset>[@<n_embd>]:<type>" (support/synth_models.h).
std::string model_file(const std::string& name) {
  const size_t colon = name.find(':');
  if (colon == std::string::npos) return testing::model_path(name);
  std::string preset = name.substr(0, colon);
  int n_embd = 0;
  if (const size_t at = preset.find('@'); at != std::string::npos) {
    n_embd = std::stoi(preset.substr(at + 1));
    preset.resize(at);
  }
  return testing::synth_preset_model(preset, name.substr(colon + 1), n_embd);
}

std::shared_ptr<Model> load_with(const std::string& name, int n_batch, WeightsMode mode = WeightsMode::Resident) {
  return Model::load(model_file(name), {.n_threads = 2, .n_batch = n_batch, .weights = mode});
}

class BatchInvariance : public ::testing::TestWithParam<IsaCase> {};

TEST_P(BatchInvariance, PrefillChunksOf1_7_64And512GiveBitwiseEqualLogits) {
  kernels::IsaGuard isa(GetParam().isa);
  auto ref_model = load_with(GetParam().model, 512);
  const int n_vocab = ref_model->info().n_vocab;
  const std::vector<Token> prompt = seeded_tokens(150, n_vocab, 11);
  Context ref(ref_model, {.n_ctx = 256});
  auto r = ref.eval(prompt, true);
  const std::vector<float> want(r.begin(), r.end());
  for (int chunk : {1, 7, 64}) {
    auto m = load_with(GetParam().model, chunk);
    Context ctx(m, {.n_ctx = 256});
    EXPECT_TRUE(bitwise_equal(ctx.eval(prompt, true), want)) << "prefill chunks of " << chunk;
  }
}

// Per sequence: its prompt, the tokens it then decodes one at a time, and the step it joins at.
struct Script {
  std::vector<Token> prompt;
  std::vector<Token> decode;
  int start_step;
};

std::vector<Script> four_sequences(int n_vocab) {
  std::vector<Script> s;
  s.push_back({seeded_tokens(9, n_vocab, 1), seeded_tokens(5, n_vocab, 21), 0});
  s.push_back({seeded_tokens(23, n_vocab, 2), seeded_tokens(3, n_vocab, 22), 0});
  s.push_back({seeded_tokens(1, n_vocab, 3), seeded_tokens(6, n_vocab, 23), 0});
  s.push_back({seeded_tokens(40, n_vocab, 4), seeded_tokens(4, n_vocab, 24), 2});  // joins mid-stream
  return s;
}

// Every logit row a sequence gets (after the prompt, then after each decode token), run alone.
std::vector<std::vector<float>> alone(const std::shared_ptr<Model>& m, const Script& s) {
  Context ctx(m, {.n_ctx = 128});
  std::vector<std::vector<float>> rows;
  auto l = ctx.eval(s.prompt);
  rows.emplace_back(l.begin(), l.end());
  for (Token t : s.decode) {
    auto d = ctx.eval(std::span<const Token>(&t, 1));
    rows.emplace_back(d.begin(), d.end());
  }
  return rows;
}

// Runs the scripts concurrently, one context and thread each, composing every step on purpose: the
// batcher is paused until every sequence due in that step has queued its work.
std::vector<std::vector<std::vector<float>>> batched(const std::shared_ptr<Model>& m, const std::vector<Script>& scripts,
                                                     int* n_steps) {
  engine::StepBatcher& b = engine::batcher_of(*m);
  int last_step = 0;
  for (const Script& s : scripts) last_step = std::max(last_step, s.start_step + static_cast<int>(s.decode.size()));
  std::vector<std::vector<std::vector<float>>> out(scripts.size());
  std::barrier sync(static_cast<std::ptrdiff_t>(scripts.size() + 1));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < scripts.size(); ++i) {
    threads.emplace_back([&, i] {
      const Script& s = scripts[i];
      Context ctx(m, {.n_ctx = 128});
      for (int step = 0; step <= last_step; ++step) {
        sync.arrive_and_wait();  // the main thread has paused the batcher
        const int k = step - s.start_step;
        if (k < 0 || k > static_cast<int>(s.decode.size())) {
          sync.arrive_and_wait();
          continue;
        }
        auto l = k == 0 ? ctx.eval(s.prompt) : ctx.eval(std::span<const Token>(&s.decode[static_cast<size_t>(k - 1)], 1));
        out[i].emplace_back(l.begin(), l.end());
        sync.arrive_and_wait();
      }
    });
  }
  const uint64_t steps0 = b.stats().steps;
  for (int step = 0; step <= last_step; ++step) {
    b.pause_for_testing(true);
    int due = 0;
    for (const Script& s : scripts)
      if (step >= s.start_step && step <= s.start_step + static_cast<int>(s.decode.size())) ++due;
    sync.arrive_and_wait();
    while (b.queued() < due) std::this_thread::yield();
    b.pause_for_testing(false);
    sync.arrive_and_wait();  // every sequence due has its logits
  }
  for (auto& t : threads) t.join();
  *n_steps = static_cast<int>(b.stats().steps - steps0);
  return out;
}

TEST_P(BatchInvariance, SequencesSharingStepsGetTheirAloneLogits) {
  kernels::IsaGuard isa(GetParam().isa);
  auto m = load_with(GetParam().model, 512);
  const auto scripts = four_sequences(m->info().n_vocab);
  int n_steps = 0;
  const auto got = batched(m, scripts, &n_steps);
  EXPECT_EQ(n_steps, 7) << "one forward pass per step for every sequence in it";
  EXPECT_EQ(engine::batcher_of(*m).stats().max_segments_in_step, 4);
  for (size_t i = 0; i < scripts.size(); ++i) {
    const auto want = alone(m, scripts[i]);
    ASSERT_EQ(got[i].size(), want.size()) << "sequence " << i;
    for (size_t r = 0; r < want.size(); ++r)
      EXPECT_TRUE(bitwise_equal(got[i][r], want[r])) << "sequence " << i << ", row " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, BatchInvariance, ::testing::ValuesIn(invariance_cases()), case_name);

// A prompt longer than what is left of a step is split across steps; streamed weights (one read of
// each layer per step for every sequence) give the same bits as resident ones.
TEST(BatchInvarianceSplit, SplitPrefillAndStreamedWeightsKeepTheAloneLogits) {
  auto ref = load_with("tiny-llama-Q4_K_M", 512);
  const auto scripts = four_sequences(ref->info().n_vocab);
  for (WeightsMode mode : {WeightsMode::Resident, WeightsMode::Stream}) {
    auto m = load_with("tiny-llama-Q4_K_M", 16, mode);  // the 23- and 40-token prompts are split
    int n_steps = 0;
    const auto got = batched(m, scripts, &n_steps);
    EXPECT_GT(n_steps, 7) << "the long prompts took more than one step";
    for (size_t i = 0; i < scripts.size(); ++i) {
      const auto want = alone(ref, scripts[i]);
      ASSERT_EQ(got[i].size(), want.size());
      for (size_t r = 0; r < want.size(); ++r)
        EXPECT_TRUE(bitwise_equal(got[i][r], want[r])) << to_string(mode) << " sequence " << i << ", row " << r;
    }
  }
}

// An eval refused before it reaches a step (a context too small for its prompt) leaves nothing
// queued: the other sequences' steps run as usual.
TEST(BatchInvarianceSplit, ARefusedEvalLeavesTheBatcherServing) {
  auto m = load_with("tiny-llama-Q4_K_M", 512);
  const auto scripts = four_sequences(m->info().n_vocab);
  Context small(m, {.n_ctx = 8});
  std::vector<Token> long_prompt = seeded_tokens(20, m->info().n_vocab, 5);
  EXPECT_THROW(small.eval(long_prompt), Error);
  EXPECT_EQ(small.n_past(), 0);
  EXPECT_EQ(engine::batcher_of(*m).queued(), 0);
  int n_steps = 0;
  const auto got = batched(m, scripts, &n_steps);
  EXPECT_EQ(n_steps, 7);
  for (size_t i = 0; i < scripts.size(); ++i) EXPECT_EQ(got[i].size(), alone(m, scripts[i]).size());
}

// Prompts that arrive a moment apart while nothing decodes share one step when the first waits for
// them (the formation window), and run one step each when it does not.
TEST(BatchInvarianceSplit, PromptsArrivingTogetherShareTheFirstStep) {
  auto m = load_with("tiny-llama-Q4_K_M", 512);
  engine::StepBatcher& b = engine::batcher_of(*m);
  const auto p1 = seeded_tokens(12, m->info().n_vocab, 11), p2 = seeded_tokens(9, m->info().n_vocab, 12);
  const auto run_pair = [&](std::chrono::milliseconds window) {
    b.set_formation_window_for_testing(window);
    Context c1(m, {.n_ctx = 64}), c2(m, {.n_ctx = 64});
    const uint64_t steps0 = b.stats().steps;
    std::vector<float> l1, l2;
    std::thread first([&] {
      auto l = c1.eval(p1);
      l1.assign(l.begin(), l.end());
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the first prompt's step has begun
    auto l = c2.eval(p2);
    l2.assign(l.begin(), l.end());
    first.join();
    return std::tuple{b.stats().steps - steps0, l1, l2};
  };
  const auto [apart, a1, a2] = run_pair(std::chrono::milliseconds(0));
  EXPECT_EQ(apart, 2u) << "without a window, each prompt has a step of its own";
  const auto [together, t1, t2] = run_pair(std::chrono::milliseconds(1500));
  EXPECT_EQ(together, 1u) << "the first prompt's step waited for the second";
  EXPECT_EQ(b.stats().max_segments_in_step, 2);
  EXPECT_TRUE(bitwise_equal(a1, t1));
  EXPECT_TRUE(bitwise_equal(a2, t2));
}

}  // namespace
}  // namespace a3s::power
