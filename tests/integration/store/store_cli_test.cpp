// The store commands of the a3s-power CLI: pull, list, show, rm, and their exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "support/fake_http_server.h"
#include "support/process.h"
#include "support/store_test_support.h"

namespace a3s::power::store {
namespace {

using testing::kStoriesSha256;
using testing::TempDir;

using CliResult = power::testing::ProcessResult;

class StoreCliTest : public ::testing::Test {
 protected:
  // Runs a3s-power with A3S_POWER_HOME pointing at a private store. Arguments are single-quoted.
  CliResult run(const std::string& args, const std::string& extra_env = "") {
    const std::string cmd = "env -u A3S_POWER_OFFLINE A3S_POWER_HOME='" + home() + "' " + extra_env + " '" +
                            power::testing::bin_path("a3s-power") + "' " + args;
    return power::testing::run_process("/bin/sh", {"-c", cmd});
  }
  std::string home() const { return tmp_.path() + "/home"; }
  static std::string q(const std::string& s) { return "'" + s + "'"; }

  TempDir tmp_;
};

TEST_F(StoreCliTest, PullListShowRmRoundTrip) {
  CliResult pull = run("pull " + q(testing::stories_path()));
  ASSERT_EQ(pull.status, 0) << pull.err;
  EXPECT_NE(pull.out.find("stories260K"), std::string::npos);
  EXPECT_NE(pull.out.find(kStoriesSha256), std::string::npos);
  // Not a terminal: plain progress lines.
  EXPECT_NE(pull.err.find("copying 1185376/1185376 bytes"), std::string::npos) << pull.err;
  EXPECT_EQ(pull.err.find('\r'), std::string::npos);

  CliResult list = run("list --format json");
  ASSERT_EQ(list.status, 0) << list.err;
  const auto arr = nlohmann::json::parse(list.out);
  ASSERT_EQ(arr.size(), 1u);
  EXPECT_EQ(arr[0]["name"], "stories260K");
  EXPECT_EQ(arr[0]["digest"], std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(arr[0]["size"], 1185376);

  CliResult table = run("list");
  ASSERT_EQ(table.status, 0);
  EXPECT_EQ(table.out.rfind("NAME", 0), 0u);
  EXPECT_NE(table.out.find("stories260K"), std::string::npos);
  EXPECT_NE(table.out.find("F32"), std::string::npos);

  CliResult show = run("show stories260K --format json");
  ASSERT_EQ(show.status, 0) << show.err;
  const auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["architecture"], "llama");
  EXPECT_EQ(j["details"]["n_ctx_train"], 2048);
  EXPECT_EQ(j["details"]["n_embd"], 64);
  EXPECT_EQ(j["details"]["n_layer"], 5);
  EXPECT_EQ(j["details"]["n_head"], 8);
  EXPECT_EQ(j["details"]["n_vocab"], 512);
  EXPECT_EQ(j["details"]["quantization"], "F32");
  EXPECT_EQ(j["details"]["chat_template"], false);

  CliResult text = run("show stories260K");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("architecture   llama"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("chat template  no"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("max context"), std::string::npos) << "no budget, no memory plan";

  // With a memory budget, show reports the residency and the context that fits (docs/layer-streaming.md).
  CliResult planned = run("show stories260K --format json --weights stream --memory-budget 64M");
  ASSERT_EQ(planned.status, 0) << planned.err;
  const auto p = nlohmann::json::parse(planned.out)["memory_plan"];
  EXPECT_EQ(p["weights"], "stream");
  EXPECT_EQ(p["memory_budget_bytes"], 64u << 20);
  EXPECT_GT(p["n_ctx_max"].get<int>(), 0);
  EXPECT_GT(p["n_batch"].get<int>(), 0);
  CliResult planned_text = run("show stories260K --memory-budget 64M");
  EXPECT_NE(planned_text.out.find("max context"), std::string::npos) << planned_text.out;
  EXPECT_EQ(run("show stories260K --memory-budget 1M").status, 2) << "a budget the model cannot fit";

  CliResult rm = run("rm stories260K");
  EXPECT_EQ(rm.status, 0) << rm.err;
  EXPECT_EQ(nlohmann::json::parse(run("list --format json").out).size(), 0u);
}

TEST_F(StoreCliTest, UnknownModelsExitWithTwo) {
  CliResult rm = run("rm nope");
  EXPECT_EQ(rm.status, 2);
  EXPECT_NE(rm.err.find("not found"), std::string::npos);
  EXPECT_EQ(std::count(rm.err.begin(), rm.err.end(), '\n'), 1) << "one line: " << rm.err;
  EXPECT_EQ(run("show nope").status, 2);
}

TEST_F(StoreCliTest, PullErrorsMapToExitCodes) {
  EXPECT_EQ(run("pull " + q(tmp_.path() + "/missing.gguf")).status, 2);
  EXPECT_EQ(run("pull http://example.com/m.gguf").status, 2);
  CliResult wrong = run("pull " + q(testing::stories_path() + "@sha256:" + std::string(64, '0')));
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find("SHA-256 mismatch"), std::string::npos);
  EXPECT_EQ(run("pull " + q(testing::stories_path()) + " --max-bytes 100").status, 2);
  EXPECT_EQ(run("pull").status, 2);                // missing REF
  EXPECT_EQ(run("list --format yaml").status, 2);  // bad flag value
}

TEST_F(StoreCliTest, PullOverHttpWithNameOfflineAndEnvironment) {
  power::testing::FileHttpServer server(testing::read_file(testing::stories_path()));
  const std::string ref = server.url() + "@sha256:" + kStoriesSha256;
  CliResult off = run("pull " + q(ref) + " --offline");
  EXPECT_EQ(off.status, 2);
  EXPECT_NE(off.err.find("offline"), std::string::npos);
  EXPECT_EQ(run("pull " + q(ref), "A3S_POWER_OFFLINE=1").status, 2);
  EXPECT_EQ(server.request_count(), 0);

  CliResult pull = run("pull " + q(ref) + " --name org/repo:F32");
  ASSERT_EQ(pull.status, 0) << pull.err;
  EXPECT_NE(pull.err.find("downloading 1185376/1185376 bytes"), std::string::npos) << pull.err;
  EXPECT_EQ(run("pull " + q(ref) + " --name org/repo:F32 --offline").status, 0);
  EXPECT_EQ(run("show org/repo:F32").status, 0);
  EXPECT_EQ(run("show org-repo-F32").status, 2);
  EXPECT_EQ(server.request_count(), 1);
}

}  // namespace
}  // namespace a3s::power::store
