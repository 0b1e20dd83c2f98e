// --weights and --memory-budget on the engine commands, run as a user would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/gguf_builder.h"
#include "cli_run.h"

namespace a3s::power {
namespace {

TEST(CliStreaming, GenerateAndLogitsMatchResident) {
  const std::vector<std::string> gen = {"generate", "--model", kStories, "--prompt", "Once upon a time", "-n", "12",
                                        "--temperature", "0", "--format", "json"};
  CliRun resident = run(gen);
  auto args = gen;
  args.insert(args.end(), {"--weights", "stream", "--memory-budget", "128M"});
  CliRun streamed = run(args);
  ASSERT_EQ(resident.status, 0) << resident.err;
  ASSERT_EQ(streamed.status, 0) << streamed.err;
  EXPECT_EQ(nlohmann::json::parse(resident.out)["tokens"], nlohmann::json::parse(streamed.out)["tokens"]);

  testing::TempDir dir;
  ASSERT_EQ(run({"logits", "--model", kStories, "--tokens", "1,403,407", "--out", dir.file("a")}).status, 0);
  ASSERT_EQ(run({"logits", "--model", kStories, "--tokens", "1,403,407", "--out", dir.file("b"), "--weights",
                 "stream"})
                .status,
            0);
  EXPECT_EQ(testing::read_bytes(dir.file("a")), testing::read_bytes(dir.file("b")));
}

TEST(CliStreaming, BenchReportsStorageReads) {
  CliRun r = run({"bench", "--model", kStories, "-p", "8", "-n", "4", "-r", "1", "--weights", "stream",
                  "--memory-budget", "128M", "-o", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["weights"], "stream");
  EXPECT_EQ(j["memory_budget_bytes"], 128u << 20);
  EXPECT_GT(j["n_ctx_max"].get<int>(), 0);
  EXPECT_GT(j["tg"]["storage_bytes_per_token"].get<double>(), 900000.0) << "each decoded token reads the weights";
  EXPECT_GT(j["tg"]["read_bytes_per_s"].get<double>(), 0.0);
  CliRun md = run({"bench", "--model", kStories, "-p", "0", "-n", "2", "-r", "1", "--weights", "stream"});
  ASSERT_EQ(md.status, 0) << md.err;
  EXPECT_NE(md.out.find("read MiB/token"), std::string::npos) << md.out;
}

TEST(CliStreaming, BadFlagsAndBudgetsAreExitTwo) {
  expect_one_line_error(run({"generate", "--model", kStories, "--prompt", "x", "--weights", "disk"}), 2);
  expect_one_line_error(run({"generate", "--model", kStories, "--prompt", "x", "--memory-budget", "lots"}), 2);
  expect_one_line_error(run({"generate", "--model", kStories, "--prompt", "x", "--memory-budget", "1M"}), 2);
  expect_one_line_error(run({"generate", "--model", kStories, "--prompt", "x", "--memory-budget", "64M",
                             "--ctx-size", "100000000"}),
                        2);
  expect_one_line_error(run({"bench", "--model", kStories, "--memory-budget", "0"}), 2);
}

}  // namespace
}  // namespace a3s::power
