// Parity with llama.cpp (CPU build) on every model in ../shared/testdata/models and prompts p1..p3,
// on the derived models of support/gguf_builder.h (rope_freqs, linear and YaRN rope scaling, qwen3 on
// tiny-qwen2's weights) and on synthetic models (`a3s-power synth` presets, e.g. qwen3-tiny with a
// head size beyond n_embd / n_head); their references are in tests/data/reference/ and the models are
// written to a temporary directory when first used:
//   Tokens: the prompt tokenizes to the reference `prompt_tokens`.
//   Logits: evaluating the reference sequence gives per-row relative L2 error ≤ 2e-3 (F32),
//           1e-2 (F16/BF16), 5e-2 (quantized) against the reference logits.
//   Greedy: greedy generation reproduces the reference tokens (exactly for F32/F16/BF16/Q8_0,
//           the first 8 for other types).
// Runs in-process through the library; each model is loaded once per test binary run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <cstring>
#include <nlohmann/json.hpp>
#include <span>

#include "a3s/power/engine.h"
#include "crypto/sha256.h"
#include "base/hex.h"
#include "engine/generator.h"
#include "kernels/kernels.h"
#include "support/gguf_builder.h"
#include "support/synth_models.h"
#include "support/temp_dir.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power {
namespace {

namespace fs = std::filesystem;

const std::string kData = A3S_TESTDATA_DIR;
const std::string kRepoReferences = std::string(A3S_SOURCE_DIR) + "/tests/data/reference";

// Synthetic models with committed references: `a3s-power synth --preset <preset> --type <type>
// [--name <general_name>]` with the default seed, and the SHA-256 of the file the reference was made
// from (the test checks it, so a change in synth cannot silently invalidate the reference).
struct SynthModel {
  std::string name;  // file stem: "<preset>-<type>"
  std::string preset, type;
  std::string general_name;  // general.name; empty: the stem, as synth names it
  std::string sha256;
  int n_embd = 0;  // --n-embd, when not the preset's
};
const std::vector<SynthModel>& synth_models() {
  static const std::vector<SynthModel> all = {
      {"qwen3-tiny-F32", "qwen3-tiny", "F32", "", "c095a463698f04a4e774b6f7681f45c996059742c0072b746fbdbbace31510cb"},
      // llama.cpp gives models whose general.name contains "phi3" Phi-3's special-token attributes,
      // which a synthetic vocabulary lacks: these are named "tiny-phi-<type>" (and gemma3 ones
      // "tiny-g3-<type>", away from its name checks too).
      {"phi3-tiny-F32", "phi3-tiny", "F32", "tiny-phi-F32",
       "d63bce08b0849875558ee1f1170e3d5122129fb2f827b46a7afd38b40a2af354"},
      {"gemma3-tiny-F32", "gemma3-tiny", "F32", "tiny-g3-F32",
       "44dd9f7ecdb96a492b7141cabb247fd312eb93344a33b1f914d53a8b87586206"},
      {"gemma3-tiny-Q8_0", "gemma3-tiny", "Q8_0", "tiny-g3-Q8_0",
       "28596781288cfb7f6aefc3bd4040645b70326fc85df330878204b46957fff086"},
      // n_embd 256: whole IQ4_XS super-blocks in the rows of the projections (ffn_down's 384 fall back
      // to IQ4_NL, as synth does for rows that are not whole super-blocks).
      {"qwen3-tiny-256-IQ4_NL", "qwen3-tiny", "IQ4_NL", "tq3-IQ4_NL", "b873ae12d939a3fe3f0d03d81562c5914687dd121395bd62780487edb5bc4b87", 256},
      {"qwen3-tiny-256-IQ4_XS", "qwen3-tiny", "IQ4_XS", "tq3-IQ4_XS", "646041e1dbc029340cd8582f70fdc162d60051e91eb0ea0a603652e0a945a0ec", 256},
      // Rows of 256 for the K-quant and IQ4_XS files (whole super-blocks).
      {"phi3-tiny-F16", "phi3-tiny", "F16", "tiny-phi-F16", "e7d7274ffe1f3691f6064257700a85733cd60967fe3b16abe9d5b8a06cdd9ba8", 0},
      {"phi3-tiny-256-Q4_K_M", "phi3-tiny", "Q4_K_M", "tiny-phi-Q4_K_M", "3641ad4d2158f24f512c5e8ce688e512e6cca7fe946288882c2edfa403dcd943", 256},
      {"phi3-tiny-256-IQ4_XS", "phi3-tiny", "IQ4_XS", "tiny-phi-IQ4_XS", "b9633bcd1ef1cdc4fd8b067187637adc20929bf1a5bbe57353bfcf35f7391009", 256},
      {"gemma3-tiny-F16", "gemma3-tiny", "F16", "tiny-g3-F16", "c25007819ba16f8875a7d00bf49ff09b7b73d14346dc2901441032c15f837c4c", 0},
      {"gemma3-tiny-256-Q4_K_M", "gemma3-tiny", "Q4_K_M", "tiny-g3-Q4_K_M", "9acd158d526b084ac773389c118b7b71298bf025f2201be4f7b435c600dbb8c1", 256},
      {"gemma3-tiny-256-IQ4_XS", "gemma3-tiny", "IQ4_XS", "tiny-g3-IQ4_XS", "1f8829b16177d21fc6af9d85301b6cdd9e81e4494cb21142e6aac334334e80fd", 256},
      {"phi3-tiny-Q8_0", "phi3-tiny", "Q8_0", "tiny-phi-Q8_0",
       "095254d0028a0d6b2601becf220ff4f2a72b6cdecf0f0ae819f3f7ec01e08567"},
      // Mixture of experts: qwen3moe (8 experts, 2 used) and llama with Mixtral-layout experts (4, 2 used).
      {"qwen3moe-tiny-F32", "qwen3moe-tiny", "F32", "tq3m-F32", "89c3124ef7cd416ecc4611d48fbf47c94c2340f84aafa1877ba6959a2d6bea01", 0},
      {"qwen3moe-tiny-F16", "qwen3moe-tiny", "F16", "tq3m-F16", "b7e4a5c7f17502e6c39437192956e0d05e9ffc38b61f1fb740b32da49be503c6", 0},
      {"qwen3moe-tiny-Q8_0", "qwen3moe-tiny", "Q8_0", "tq3m-Q8_0", "6ff3055d119d8fc713037d8156ebe52e4ca33f8e7a4ce1f62b0059919bddb376", 0},
      {"qwen3moe-tiny-256-Q4_K_M", "qwen3moe-tiny", "Q4_K_M", "tq3m-Q4_K_M", "f951437b7662b51e4503c8a287cf85f99811e7cabf6105767edc21626de469d5", 256},
      {"qwen3moe-tiny-256-IQ4_XS", "qwen3moe-tiny", "IQ4_XS", "tq3m-IQ4_XS", "56f6dd11e10a44c84ce9810ace6dc92ddddf8fac4b4ea5c233ce177025a34303", 256},
      {"mixtral-tiny-F32", "mixtral-tiny", "F32", "tmix-F32", "da86b11ff9d91950a724be23387250537a4e6d5ef6414a648b1bf6a981b27778", 0},
      {"mixtral-tiny-Q8_0", "mixtral-tiny", "Q8_0", "tmix-Q8_0", "a1f7691fa76ce4aabb8f187aa780ef9840951ef422e23d6e02c7f897bee77229", 0},
      {"mixtral-tiny-F16", "mixtral-tiny", "F16", "tmix-F16", "2969d4514dd6076127c164e821a21c61b0d296bc9215ea723290016f208204d6", 0},
      {"mixtral-tiny-256-Q4_K_M", "mixtral-tiny", "Q4_K_M", "tmix-Q4_K_M", "b092b4916b84236e26e98b56cc751a9655f832a13f4928b97ccdd47aafb46b1d", 256},
      {"mixtral-tiny-256-IQ4_XS", "mixtral-tiny", "IQ4_XS", "tmix-IQ4_XS", "f9284215c595a2976ad1916f90cb36a9150d1a26bc3702b0ac71abf6bc9b91c9", 256},
  };
  return all;
}
const SynthModel* find_synth_model(const std::string& name) {
  for (const SynthModel& m : synth_models())
    if (m.name == name) return &m;
  return nullptr;
}

struct ParityCase {
  std::string model;  // file stem
  int prompt;         // 1..3
  bool derived = false;  // a derived or synthetic model (reference in the repository)
};

std::string reference_base(const ParityCase& c) {
  return (c.derived ? kRepoReferences : kData + "/reference") + "/" + c.model + ".p" + std::to_string(c.prompt);
}

// The file of a shared model, or of a derived one (written once per test binary run).
std::string model_file(const std::string& name) {
  const testing::DerivedModel* d = testing::find_derived_model(name);
  const SynthModel* sm = find_synth_model(name);
  if (!d && !sm) return kData + "/models/" + name + ".gguf";
  if (sm) {
    const std::string path = testing::synth_preset_model(sm->preset, sm->type, sm->n_embd, sm->general_name);
    std::ifstream f(path, std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (to_hex(crypto::sha256(bytes)) != sm->sha256)
      throw std::runtime_error(name + ": synth wrote another file than the reference was made from");
    return path;
  }
  static testing::TempDir dir;
  const std::string path = dir.path() + "/" + name + ".gguf";
  if (!fs::exists(path)) testing::write_derived_model(kData + "/models/" + d->base + ".gguf", *d, path);
  return path;
}

std::vector<ParityCase> all_cases() {
  std::vector<std::string> models;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kData + "/models", ec))
    if (e.path().extension() == ".gguf") models.push_back(e.path().stem().string());
  std::sort(models.begin(), models.end());
  std::vector<ParityCase> cases;
  for (const auto& m : models)
    for (int p = 1; p <= 3; ++p)
      if (fs::exists(kData + "/reference/" + m + ".p" + std::to_string(p) + ".json")) cases.push_back({m, p});
  std::vector<std::string> in_repo;
  for (const testing::DerivedModel& d : testing::derived_models()) in_repo.push_back(d.name);
  for (const SynthModel& m : synth_models()) in_repo.push_back(m.name);
  for (const std::string& name : in_repo)
    for (int p = 1; p <= 3; ++p)
      if (fs::exists(kRepoReferences + "/" + name + ".p" + std::to_string(p) + ".json"))
        cases.push_back({name, p, true});
  return cases;
}

enum class Kind { F32, Half, Q8_0, Quantized };

Kind kind_of(std::string model) {
  if (const testing::DerivedModel* d = testing::find_derived_model(model)) model = d->base;
  auto ends = [&](const std::string& s) {
    return model.size() >= s.size() && model.compare(model.size() - s.size(), s.size(), s) == 0;
  };
  if (ends("f32") || ends("F32") || model == "stories260K") return Kind::F32;
  if (ends("F16") || ends("BF16")) return Kind::Half;
  if (ends("Q8_0")) return Kind::Q8_0;
  return Kind::Quantized;
}

double tolerance(Kind k) {
  switch (k) {
    case Kind::F32:
      return 2e-3;
    case Kind::Half:
      return 1e-2;
    default:
      return 5e-2;
  }
}

struct Reference {
  std::string prompt;
  std::vector<Token> prompt_tokens, greedy_tokens;
  int n_vocab = 0, logits_rows = 0;
  std::vector<float> logits;  // [logits_rows, n_vocab]
};

Reference load_reference(const ParityCase& c) {
  const std::string base = reference_base(c);
  std::ifstream jf(base + ".json");
  const nlohmann::json j = nlohmann::json::parse(jf);
  Reference r;
  r.prompt = j.at("prompt").get<std::string>();
  r.prompt_tokens = j.at("prompt_tokens").get<std::vector<Token>>();
  r.greedy_tokens = j.at("greedy_tokens").get<std::vector<Token>>();
  r.n_vocab = j.at("n_vocab").get<int>();
  r.logits_rows = j.at("logits_rows").get<int>();
  // When the greedy run ended on an end-of-generation token, that token was never evaluated: the
  // file then holds one row less than `logits_rows` counts. The file size is authoritative.
  const auto bytes = fs::file_size(base + ".logits.f32");
  const int file_rows = static_cast<int>(bytes / (sizeof(float) * static_cast<size_t>(r.n_vocab)));
  if (file_rows != r.logits_rows && file_rows != r.logits_rows - 1)
    throw std::runtime_error("reference logits file does not match logits_rows");
  r.logits_rows = file_rows;
  std::ifstream lf(base + ".logits.f32", std::ios::binary);
  r.logits.resize(static_cast<size_t>(r.logits_rows) * r.n_vocab);
  lf.read(reinterpret_cast<char*>(r.logits.data()),
          static_cast<std::streamsize>(r.logits.size() * sizeof(float)));
  if (!lf) throw std::runtime_error("short reference logits file");
  return r;
}

std::shared_ptr<Model> model_for(const std::string& name, WeightsMode weights = WeightsMode::Resident) {
  static std::map<std::pair<std::string, WeightsMode>, std::shared_ptr<Model>> cache;
  auto& m = cache[{name, weights}];
  if (!m) m = Model::load(model_file(name), {.n_threads = 2, .weights = weights});
  return m;
}

// The reference sequence's logits as llama.cpp produced them: the prompt in one batch, then one token
// per decode step ([rows, n_vocab]).
std::vector<float> prefill_then_decode(std::shared_ptr<Model> model, std::span<const Token> seq, size_t n_prompt) {
  Context ctx(model, {.n_ctx = 256});
  auto p = ctx.eval(seq.subspan(0, n_prompt), /*all_logits=*/true);
  std::vector<float> out(p.begin(), p.end());
  for (size_t i = n_prompt; i < seq.size(); ++i) {
    auto row = ctx.eval(seq.subspan(i, 1));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

class Parity : public ::testing::TestWithParam<ParityCase> {
 protected:
  // A run with A3S_POWER_ISA naming a path this CPU lacks would silently test another path instead.
  void SetUp() override {
    const char* v = std::getenv("A3S_POWER_ISA");
    const auto isa = v != nullptr ? kernels::parse_isa(v) : std::nullopt;
    if (isa && !kernels::isa_supported(*isa))
      GTEST_SKIP() << "A3S_POWER_ISA=" << v << ": instruction set not supported by this CPU";
  }
};

TEST_P(Parity, PromptTokens) {
  const Reference ref = load_reference(GetParam());
  auto model = model_for(GetParam().model);
  EXPECT_EQ(model->tokenizer().encode(ref.prompt, /*add_special=*/true, /*parse_special=*/false),
            ref.prompt_tokens);
}

// Relative L2 error ‖got − ref‖₂ / ‖ref‖₂ of row r of `got` ([rows, n_vocab]).
double row_error(const Reference& ref, std::span<const float> got, int r) {
  double num = 0, den = 0;
  for (int i = 0; i < ref.n_vocab; ++i) {
    const double a = got[static_cast<size_t>(r) * ref.n_vocab + i],
                 b = ref.logits[static_cast<size_t>(r) * ref.n_vocab + i];
    num += (a - b) * (a - b);
    den += b * b;
  }
  return std::sqrt(num / den);
}

// Per-row relative L2 error of `got` against the reference, each within `tol`; returns the worst row.
double check_rows(const Reference& ref, std::span<const float> got, double tol, const char* how) {
  double worst = 0;
  for (int r = 0; r < ref.logits_rows; ++r) {
    const double e = row_error(ref, got, r);
    worst = std::max(worst, e);
    if (std::getenv("A3S_PARITY_VERBOSE"))
      std::cout << "[          ]   " << how << " row " << r << ": " << e << "\n";
    EXPECT_LE(e, tol) << how << " row " << r;
  }
  return worst;
}

TEST_P(Parity, Logits) {
  const ParityCase& c = GetParam();
  const Reference ref = load_reference(c);
  auto model = model_for(c.model);
  ASSERT_EQ(model->info().n_vocab, ref.n_vocab);
  std::vector<Token> seq = ref.prompt_tokens;
  seq.insert(seq.end(), ref.greedy_tokens.begin(), ref.greedy_tokens.end());
  ASSERT_GE(seq.size(), static_cast<size_t>(ref.logits_rows));
  seq.resize(static_cast<size_t>(ref.logits_rows));
  const double tol = tolerance(kind_of(c.model));
  const size_t n_vocab = static_cast<size_t>(ref.n_vocab);

  const size_t n_prompt = std::min(ref.prompt_tokens.size(), seq.size());
  const std::vector<float> stepwise = prefill_then_decode(model, seq, n_prompt);
  ASSERT_EQ(stepwise.size(), ref.logits.size());
  const double worst_steps = check_rows(ref, stepwise, tol, "prefill+decode");

  // The whole sequence in one eval (one prefill batch).
  Context batch(model, {.n_ctx = 256});
  auto got = batch.eval(seq, /*all_logits=*/true);
  ASSERT_EQ(got.size(), seq.size() * n_vocab);
  const double worst_batch = check_rows(ref, got, tol, "one batch");

  std::cout << "[          ] " << c.model << " p" << c.prompt << ": max relative L2 error " << worst_steps
            << " (prefill+decode), " << worst_batch << " (one batch); limit " << tol << "\n";
  RecordProperty("max_rel_l2", std::to_string(std::max(worst_steps, worst_batch)));
}

// Layer streaming reads the same bytes and runs the same arithmetic: logits are bit for bit those of
// the memory-mapped model, in prefill and in decode.
TEST_P(Parity, StreamedWeightsGiveIdenticalLogits) {
  const ParityCase& c = GetParam();
  const Reference ref = load_reference(c);
  std::vector<Token> seq = ref.prompt_tokens;
  seq.insert(seq.end(), ref.greedy_tokens.begin(), ref.greedy_tokens.end());
  seq.resize(std::min(seq.size(), static_cast<size_t>(ref.logits_rows)));
  const size_t n_prompt = std::min(ref.prompt_tokens.size(), seq.size());
  auto streamed = model_for(c.model, WeightsMode::Stream);
  ASSERT_EQ(streamed->info().weights, WeightsMode::Stream);
  const uint64_t read_before = streamed->weight_bytes_read();
  const std::vector<float> a = prefill_then_decode(model_for(c.model), seq, n_prompt);
  const std::vector<float> b = prefill_then_decode(streamed, seq, n_prompt);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "streamed logits differ";
  EXPECT_GT(streamed->weight_bytes_read(), read_before) << "the weights were read from storage";
  EXPECT_EQ(model_for(c.model)->weight_bytes_read(), 0u);
}

// Logit gap under which llama.cpp's greedy choice counts as a near tie (quantized models' logits agree
// within a few per cent of their magnitude, ~2.5 here).
constexpr float kNearTie = 0.05f;

float top_two_gap(const float* row, int n) {
  float a = -std::numeric_limits<float>::infinity(), b = a;
  for (int i = 0; i < n; ++i) {
    if (row[i] > a) {
      b = a;
      a = row[i];
    } else if (row[i] > b) {
      b = row[i];
    }
  }
  return a - b;
}

TEST_P(Parity, GreedyTokens) {
  const ParityCase& c = GetParam();
  const Reference ref = load_reference(c);
  auto model = model_for(c.model);
  std::vector<Token> expect = ref.greedy_tokens;
  const bool ended_on_eog = !expect.empty() && model->tokenizer().is_eog(expect.back());
  if (ended_on_eog) expect.pop_back();

  Context ctx(model, {.n_ctx = 256});
  GenerationRequest req;
  req.prompt = ref.prompt_tokens;
  req.sampling.temperature = 0.0f;
  req.max_tokens = static_cast<int>(ref.greedy_tokens.size());
  GenerationResult res = generate(ctx, req);

  const size_t same = static_cast<size_t>(
      std::mismatch(res.tokens.begin(), res.tokens.end(), expect.begin(), expect.end()).first -
      res.tokens.begin());
  const Kind k = kind_of(c.model);
  if (k == Kind::Quantized) {
    // The first 8 tokens must be llama.cpp's, up to the first step where llama.cpp's own choice was a
    // near tie (its top two logits within kNearTie): there a different summation order of quantized
    // dot products (within the logits tolerance above) may pick the other one.
    size_t n = std::min<size_t>(8, expect.size());
    for (size_t s = 0; s < n; ++s) {
      const size_t row = ref.prompt_tokens.size() - 1 + s;
      if (row >= static_cast<size_t>(ref.logits.size() / static_cast<size_t>(ref.n_vocab))) break;
      if (top_two_gap(&ref.logits[row * static_cast<size_t>(ref.n_vocab)], ref.n_vocab) < kNearTie) {
        n = s;  // that step's logits are still checked by Logits
        break;
      }
    }
    ASSERT_GE(res.tokens.size(), n);
    EXPECT_EQ(std::vector<Token>(res.tokens.begin(), res.tokens.begin() + static_cast<long>(n)),
              std::vector<Token>(expect.begin(), expect.begin() + static_cast<long>(n)));
    std::cout << "[          ] " << c.model << " p" << c.prompt << ": " << same << "/" << expect.size()
              << " greedy tokens identical\n";
  } else {
    EXPECT_EQ(res.tokens, expect);
    EXPECT_EQ(res.finish, ended_on_eog ? FinishReason::Stop : FinishReason::Length);
  }
}

// The derived models' features matter: their base model (the same weights without the feature)
// misses the reference by far more than the tolerance, so an engine that ignored rope_freqs or the
// rope scaling keys would fail the checks above.
TEST(ParityDerived, TheBaseModelMissesTheDerivedReference) {
  int checked = 0;
  for (const ParityCase& c : all_cases()) {
    if (!c.derived || !testing::find_derived_model(c.model)) continue;
    const Reference ref = load_reference(c);
    const std::string base = testing::find_derived_model(c.model)->base;
    std::vector<Token> seq = ref.prompt_tokens;
    seq.insert(seq.end(), ref.greedy_tokens.begin(), ref.greedy_tokens.end());
    seq.resize(static_cast<size_t>(ref.logits_rows));
    Context ctx(model_for(base), {.n_ctx = 256});
    auto got = ctx.eval(seq, /*all_logits=*/true);
    double worst = 0;
    for (int r = 0; r < ref.logits_rows; ++r) worst = std::max(worst, row_error(ref, got, r));
    EXPECT_GT(worst, 4 * tolerance(kind_of(c.model))) << c.model << " p" << c.prompt;
    ++checked;
  }
  EXPECT_GE(checked, 23);
}

INSTANTIATE_TEST_SUITE_P(Models, Parity, ::testing::ValuesIn(all_cases()), [](const auto& info) {
  std::string n = info.param.model + "_p" + std::to_string(info.param.prompt);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

}  // namespace
}  // namespace a3s::power
