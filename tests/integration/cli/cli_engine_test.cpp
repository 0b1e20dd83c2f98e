// `a3s-power generate` and `a3s-power logits` run as a user would: the real binary, its stdout,
// stderr and exit status.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/gguf_builder.h"
#include "cli_run.h"

namespace a3s::power {
namespace {

using testing::TempDir;

TEST(CliGenerate, StoriesGreedyJsonMatchesReference) {
  CliRun r = run({"generate", "--model", kStories, "--prompt", "Once upon a time", "-n", "32",
                  "--temperature", "0", "--format", "json", "--threads", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream rf(testing::testdata_dir() + "/reference/stories260K.p1.json");
  const auto ref = nlohmann::json::parse(rf);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("prompt_tokens"), ref.at("prompt_tokens"));
  EXPECT_EQ(j.at("tokens"), ref.at("greedy_tokens"));
  EXPECT_EQ(j.at("tokens").size(), 32u);
  EXPECT_EQ(j.at("text"),
            ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw");
  EXPECT_EQ(j.at("finish_reason"), "length");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1);
}

TEST(CliGenerate, TextFormatStreamsTheText) {
  CliRun r = run({"generate", "--model", kStories, "--prompt", "Once upon a time", "-n", "8", "--temperature",
                  "0", "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, ", there was a little girl\n");  // 8 tokens, newline after the stream
}

TEST(CliGenerate, SeededSamplingIsReproducible) {
  const std::vector<std::string> args = {
      "generate", "--model", kStories, "--prompt", "Lily and Ben were", "-n",  "16", "--temperature", "1.0",
      "--top-k",  "40",      "--seed", "1234",     "--format",          "json"};
  CliRun a = run(args), b = run(args);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(CliGenerate, BadInputExitsTwoWithOneLine) {
  expect_one_line_error(run({"generate", "--model", "/nonexistent.gguf", "--prompt", "x"}), 2);
  expect_one_line_error(run({"generate", "--model", kStories, "--prompt", "x", "--format", "xml"}), 2);
  expect_one_line_error(run({"generate", "--model", kStories}), 2);  // missing --prompt
  expect_one_line_error(run({"generate", "--model", kStories, "--prompt", "x", "--threads", "-3"}), 2);

  TempDir dir;
  auto bytes = testing::read_bytes(kStories);
  std::vector<uint8_t> corrupt(bytes.begin(), bytes.begin() + 5000);
  testing::write_bytes(dir.file("corrupt.gguf"), corrupt);
  // A FIFO (or any non-regular file) is refused without blocking on the open.
  ASSERT_EQ(::mkfifo(dir.file("fifo.gguf").c_str(), 0600), 0);
  expect_one_line_error(run({"generate", "--model", dir.file("fifo.gguf"), "--prompt", "x"}), 2);
  expect_one_line_error(run({"tokenize", "--model", kStories, "--text-file", dir.file("fifo.gguf")}), 2);
  expect_one_line_error(run({"tokenize", "--model", kStories, "--text-file", dir.file("")}), 2);
  CliRun c = run({"generate", "--model", dir.file("corrupt.gguf"), "--prompt", "Once upon a time"});
  expect_one_line_error(c, 2);
  EXPECT_EQ(c.err.find("Once upon"), std::string::npos) << "prompt text must not be echoed";

  testing::patch_string_value(bytes, "general.architecture", "mamba");
  testing::write_bytes(dir.file("mamba.gguf"), bytes);
  CliRun u = run({"generate", "--model", dir.file("mamba.gguf"), "--prompt", "hello"});
  expect_one_line_error(u, 2);
  EXPECT_NE(u.err.find("architecture"), std::string::npos) << u.err;
}

// What the engine does not compute is refused by name, exit 2, one line: a tensor the graph does not
// use and an unsupported rope scaling type.
TEST(CliGenerate, ModelFeaturesTheEngineDoesNotComputeAreRefusedByName) {
  TempDir dir;
  const std::string base = testing::model_path("tiny-llama-f32");
  testing::write_derived_model(
      base, {.name = "extra", .base = "tiny-llama-f32", .tensors = {{"blk.0.attn_output.bias", std::vector<float>(256, 1.0f)}}},
      dir.file("extra.gguf"));
  testing::write_derived_model(
      base, {.name = "longrope", .base = "tiny-llama-f32", .keys = {{"llama.rope.scaling.type", testing::string_value("longrope")}}},
      dir.file("longrope.gguf"));
  for (bool generate : {true, false}) {
    auto invoke = [&](const std::string& model) {
      return generate ? run({"generate", "--model", model, "--prompt", "hello"}) : run({"run", model, "hello"});
    };
    CliRun extra = invoke(dir.file("extra.gguf"));
    expect_one_line_error(extra, 2);
    EXPECT_NE(extra.err.find("blk.0.attn_output.bias"), std::string::npos) << extra.err;
    CliRun rope = invoke(dir.file("longrope.gguf"));
    expect_one_line_error(rope, 2);
    EXPECT_NE(rope.err.find("rope scaling \"longrope\""), std::string::npos) << rope.err;
  }
}

TEST(CliLogits, WritesRowsTimesVocabFloatsMatchingReference) {
  TempDir dir;
  const std::string out = dir.file("logits.f32");
  CliRun r = run({"logits", "--model", kStories, "--tokens", "1,403,407", "--out", out, "--threads", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(std::filesystem::file_size(out), 3u * 512 * 4);
  std::ifstream f(out, std::ios::binary),
      g(testing::testdata_dir() + "/reference/stories260K.p1.logits.f32", std::ios::binary);
  std::vector<float> ours(3 * 512), ref(3 * 512);
  f.read(reinterpret_cast<char*>(ours.data()), static_cast<std::streamsize>(ours.size() * 4));
  g.read(reinterpret_cast<char*>(ref.data()), static_cast<std::streamsize>(ref.size() * 4));
  for (int row = 0; row < 3; ++row) {
    double num = 0, den = 0;
    for (int i = 0; i < 512; ++i) {
      const double d = ours[row * 512 + i] - ref[row * 512 + i];
      num += d * d;
      den += static_cast<double>(ref[row * 512 + i]) * ref[row * 512 + i];
    }
    EXPECT_LT(std::sqrt(num / den), 2e-3) << "row " << row;
  }
}

TEST(CliLogits, BadTokenListsExitTwo) {
  TempDir dir;
  const std::string out = dir.file("x.f32");
  for (const std::string bad : {"", "1,,2", "1,x", "1;2", "1,99999", "-1", "1, 2 3", "99999999999999"}) {
    CliRun r = run({"logits", "--model", kStories, "--tokens", bad, "--out", out});
    expect_one_line_error(r, 2);
  }
  expect_one_line_error(
      run({"logits", "--model", kStories, "--tokens", "1,2", "--out", "/nonexistent/dir/x.f32"}), 2);
  expect_one_line_error(run({"logits", "--model", "/nonexistent.gguf", "--tokens", "1", "--out", out}), 2);
}

}  // namespace
}  // namespace a3s::power
