// `a3s-power synth` and `a3s-power bench` run as a user would: a small synthetic model is written,
// loaded, generated from and benchmarked; bad input gets exit status 2 and a one-line error.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/gguf_builder.h"
#include "cli_run.h"

namespace a3s::power {
namespace {

using testing::TempDir;

std::vector<std::string> small_shape(const std::string& out, const std::string& type) {
  return {"synth", "--n-embd", "256", "--n-layer", "2", "--n-head", "4", "--n-head-kv", "2", "--n-ff", "512",
          "--n-vocab", "600", "--type", type, "--out", out, "-t", "2"};
}

TEST(CliSynth, WritesALoadableModelThatGenerates) {
  TempDir dir;
  const std::string model = dir.file("m.gguf");
  CliRun s = run(small_shape(model, "Q4_K_M"));
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("Q4_K_M"), std::string::npos) << s.out;
  EXPECT_FALSE(std::filesystem::exists(model + ".tmp"));

  CliRun g = run({"generate", "--model", model, "--prompt", "hello world", "-n", "6", "--temperature", "0",
                  "--format", "json"});
  ASSERT_EQ(g.status, 0) << g.err;
  const auto j = nlohmann::json::parse(g.out);
  EXPECT_EQ(j["tokens"].size(), 6u);
  EXPECT_EQ(j["prompt_tokens"][0], 1) << "the synthetic SentencePiece vocabulary adds BOS";
  for (const auto& t : j["tokens"]) EXPECT_LT(t.get<int>(), 600);
}

TEST(CliSynth, SameSeedSameBytesOtherSeedOtherBytes) {
  TempDir dir;
  auto a = small_shape(dir.file("a.gguf"), "Q8_0");
  auto b = small_shape(dir.file("b.gguf"), "Q8_0");
  b[b.size() - 1] = "1";  // one thread instead of two: same file
  auto c = small_shape(dir.file("c.gguf"), "Q8_0");
  c.insert(c.end(), {"--seed", "7"});
  for (const auto& args : {a, b, c}) ASSERT_EQ(run(args).status, 0);
  EXPECT_EQ(testing::read_bytes(dir.file("a.gguf")), testing::read_bytes(dir.file("b.gguf")));
  EXPECT_NE(testing::read_bytes(dir.file("a.gguf")), testing::read_bytes(dir.file("c.gguf")));
}

TEST(CliSynth, VocabFromCopiesTheTokenizer) {
  TempDir dir;
  const std::string model = dir.file("v.gguf");
  CliRun s = run({"synth", "--n-embd", "64", "--n-layer", "1", "--n-head", "2", "--n-ff", "128", "--type", "F16",
                  "--vocab-from", kStories, "--out", model});
  ASSERT_EQ(s.status, 0) << s.err;
  CliRun ours = run({"tokenize", "--model", model, "--text", "Once upon a time"});
  CliRun ref = run({"tokenize", "--model", kStories, "--text", "Once upon a time"});
  ASSERT_EQ(ours.status, 0) << ours.err;
  EXPECT_EQ(ours.out, ref.out);
  EXPECT_NE(s.out.find("vocab 512"), std::string::npos) << s.out;
}

TEST(CliSynth, BadInputIsExitTwoAndWritesNothing) {
  TempDir dir;
  const std::string out = dir.file("x.gguf");
  expect_one_line_error(run({"synth", "--preset", "llama-3b", "--out", out}), 2);
  expect_one_line_error(run({"synth", "--preset", "llama-1b", "--type", "Q4_9", "--out", out}), 2);
  expect_one_line_error(run({"synth", "--n-embd", "256", "--out", out}), 2);
  expect_one_line_error(run({"synth", "--n-embd", "250", "--n-layer", "1", "--n-head", "4", "--n-ff", "64",
                             "--out", out}),
                        2);  // 250 is not a multiple of 4 heads
  expect_one_line_error(run({"synth", "--n-embd", "64", "--n-layer", "1", "--n-head", "2", "--n-ff", "64",
                             "--vocab-from", dir.file("missing.gguf"), "--out", out}),
                        2);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "no partial or temporary file is left behind";

  testing::write_bytes(out, {1, 2, 3});
  expect_one_line_error(run(small_shape(out, "Q4_0")), 2);
  EXPECT_EQ(testing::read_bytes(out), (std::vector<uint8_t>{1, 2, 3})) << "an existing file is not replaced";
  ASSERT_EQ(run([&] {
              auto a = small_shape(out, "Q4_0");
              a.push_back("--force");
              return a;
            }())
                .status,
            0);
  EXPECT_GT(std::filesystem::file_size(out), 3u);
}

TEST(CliBench, JsonHasTheLlamaBenchFields) {
  CliRun r = run({"bench", "--model", kStories, "-p", "16", "-n", "4", "-r", "2", "-t", "2", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "llama");
  EXPECT_EQ(j["type"], "F32");
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["pp"]["n_tokens"], 16);
  EXPECT_EQ(j["tg"]["n_tokens"], 4);
  for (const char* t : {"pp", "tg"}) {
    EXPECT_GT(j[t]["tokens_per_s"].get<double>(), 0.0) << t;
    EXPECT_GE(j[t]["stddev"].get<double>(), 0.0) << t;
    EXPECT_EQ(j[t]["samples"].size(), 2u) << t;
  }
  EXPECT_GT(j["peak_rss_bytes"].get<uint64_t>(), 1u << 20);
}

TEST(CliBench, AnIsaNameTheEnvironmentGetsWrongIsAWarningAndTheBestPathRuns) {
  ::setenv("A3S_POWER_ISA", "AVX-2", 1);
  CliRun r = run({"bench", "--model", kStories, "-p", "4", "-n", "0", "-r", "1", "-o", "json"});
  ::unsetenv("A3S_POWER_ISA");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(r.err, "warning: A3S_POWER_ISA=\"AVX-2\" is not an instruction set (auto, scalar, avx2, avxvnni, avx512); using " +
                       j["isa"].get<std::string>() + "\n");
}

TEST(CliBench, MembwAloneMeasuresTheBandwidthOnly) {
  CliRun r = run({"bench", "--model", kStories, "-p", "0", "-n", "0", "-r", "1", "--membw", "-o", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["pp"].is_null());
  EXPECT_TRUE(j["tg"].is_null());
  EXPECT_GT(j["membw"]["bytes_per_s"].get<double>(), 0.0);
  EXPECT_TRUE(j["membw"]["tg_fraction"].is_null());

  CliRun none = run({"bench", "--model", kStories, "-p", "0", "-n", "0"});
  expect_one_line_error(none, 2);
  EXPECT_NE(none.err.find("nothing to measure"), std::string::npos) << none.err;
}

TEST(CliBench, OutputThatCannotBeWrittenIsAnError) {
  testing::TempDir dir;
  // Standard output open read-only: every write to it fails.
  for (const char* format : {"json", "md"}) {
    const std::string cmd = testing::shell_quote(kBin) + " bench --model " + testing::shell_quote(kStories) +
                            " -p 4 -n 0 -r 1 -o " + format + " 1</dev/null 2>" + testing::shell_quote(dir.file("err"));
    const testing::ProcessResult r = testing::run_shell(cmd);
    ASSERT_NE(r.status, -1) << "killed by a signal";
    EXPECT_EQ(r.status, 2) << format;
    EXPECT_NE(testing::read_text_file(dir.file("err")).find("error: cannot write to standard output"), std::string::npos)
        << testing::read_text_file(dir.file("err"));
  }
}

TEST(CliBench, MarkdownTableAndSkippedTest) {
  CliRun r = run({"bench", "--model", kStories, "-p", "8", "-n", "0", "-r", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("| pp8 |"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("| tg"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peak RSS:"), std::string::npos) << r.out;

  CliRun j = run({"bench", "--model", kStories, "-p", "0", "-n", "2", "-r", "1", "-o", "json"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(nlohmann::json::parse(j.out)["pp"].is_null());
}

TEST(CliBench, MembwGivesTheBandwidthAndTheDecodeCeiling) {
  CliRun r = run({"bench", "--model", kStories, "-p", "0", "-n", "4", "-r", "2", "-t", "2", "--membw", "-o", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& m = j["membw"];
  ASSERT_TRUE(m.is_object()) << r.out;
  EXPECT_EQ(m["buffer_bytes"].get<uint64_t>(), uint64_t{1} << 30);
  // Measured before the first tg repetition and after each: 3 samples for 2 repetitions.
  ASSERT_TRUE(m["around_tg"].get<bool>());
  const auto samples = m["samples"].get<std::vector<double>>();
  ASSERT_EQ(samples.size(), 3u);
  for (double b : samples) EXPECT_GT(b, 0.0);
  EXPECT_NEAR(m["bytes_per_s"].get<double>(), (samples[0] + samples[1] + samples[2]) / 3, 1.0);
  EXPECT_EQ(m["bytes_per_s_min"].get<double>(), *std::min_element(samples.begin(), samples.end()));
  EXPECT_EQ(m["bytes_per_s_max"].get<double>(), *std::max_element(samples.begin(), samples.end()));
  // ceiling = bandwidth ÷ the weight bytes a token reads (less than the file: one row of the token
  // embeddings); tg_fraction = the mean over the repetitions of each one's tg over the ceiling of the
  // two measurements around it.
  const double size = m["decode_bytes"].get<double>();
  EXPECT_GT(size, 0.0);
  EXPECT_LT(size, j["size_bytes"].get<double>());
  const double ceiling = m["decode_ceiling_tokens_per_s"].get<double>();
  EXPECT_NEAR(ceiling, m["bytes_per_s"].get<double>() / size, ceiling * 1e-9);
  const auto tg = j["tg"]["samples"].get<std::vector<double>>();
  ASSERT_EQ(tg.size(), 2u);
  const double expected =
      (tg[0] / ((samples[0] + samples[1]) / 2 / size) + tg[1] / ((samples[1] + samples[2]) / 2 / size)) / 2;
  EXPECT_NEAR(m["tg_fraction"].get<double>(), expected, expected * 1e-9);
  // The 1 GiB buffer is not counted as the model's memory.
  EXPECT_LT(j["peak_rss_bytes"].get<uint64_t>(), uint64_t{256} << 20);

  // Without a tg test: one measurement after the tests, and no fraction.
  CliRun pp = run({"bench", "--model", kStories, "-p", "4", "-n", "0", "-r", "1", "--membw", "-o", "json"});
  ASSERT_EQ(pp.status, 0) << pp.err;
  const auto jp = nlohmann::json::parse(pp.out);
  EXPECT_FALSE(jp["membw"]["around_tg"].get<bool>());
  EXPECT_EQ(jp["membw"]["samples"].size(), 1u);
  EXPECT_TRUE(jp["membw"]["tg_fraction"].is_null());
  EXPECT_LT(jp["peak_rss_bytes"].get<uint64_t>(), uint64_t{256} << 20);

  CliRun md = run({"bench", "--model", kStories, "-p", "0", "-n", "2", "-r", "1", "--membw"});
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find("memory read bandwidth: "), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("% of it"), std::string::npos) << md.out;

  CliRun without = run({"bench", "--model", kStories, "-p", "0", "-n", "2", "-r", "1", "-o", "json"});
  ASSERT_EQ(without.status, 0) << without.err;
  EXPECT_TRUE(nlohmann::json::parse(without.out)["membw"].is_null());
}

TEST(CliBench, BadInputIsExitTwo) {
  expect_one_line_error(run({"bench", "--model", kStories, "-r", "0"}), 2);
  expect_one_line_error(run({"bench", "--model", kStories, "-p", "-1"}), 2);
  expect_one_line_error(run({"bench", "--model", kStories, "-p", "0", "-n", "0"}), 2);
  expect_one_line_error(run({"bench", "--model", kStories, "--format", "xml"}), 2);
  expect_one_line_error(run({"bench", "--model", kStories, "-b", "0"}), 2);
  expect_one_line_error(run({"bench", "--model", "/nonexistent/model.gguf"}), 2);
}

}  // namespace
}  // namespace a3s::power
