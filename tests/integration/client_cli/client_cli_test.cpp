// `a3s-power run`, `chat` and `ps` end to end: the real binary, the real server on an ephemeral
// loopback port and the real stories260K model.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli_process.h"
#include "support/fake_http_server.h"

namespace a3s::power::client_cli {
namespace {

// Greedy continuation of "Once upon a time" (with BOS): 32 tokens (cli_process.h has the first 8).
const std::string kGreedy32 =
    ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw";

void expect_one_line_error(const CliResult& r, int status, const std::string& fragment) {
  EXPECT_EQ(r.status, status) << "stderr: " << r.err;
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "stderr must be exactly one line: " << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

int count_lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

// ---------------------------------------------------------------------------------------------
// run (in process)

TEST(CliRun, OneShotPrintsTheGreedyContinuation) {
  CliResult r = run_cli(
      {"run", stories_model(), "Once upon a time", "--temperature", "0", "-n", "32", "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kGreedy32 + "\n");
  EXPECT_EQ(r.err, "") << "nothing but the reply is printed";
}

TEST(CliRun, PromptWordsAreJoined) {
  CliResult r = run_cli(
      {"run", stories_model(), "Once", "upon", "a", "time", "--temperature", "0", "-n", "8", "-t", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kGreedy8 + "\n");
}

TEST(CliRun, PipedStdinIsThePrompt) {
  CliResult r =
      run_cli({"run", stories_model(), "--temperature", "0", "-n", "8", "-t", "1"}, "Once upon a time\n");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kGreedy8 + "\n");
}

TEST(CliRun, EmptyStdinIsAnError) {
  CliResult r = run_cli({"run", stories_model(), "-t", "1"}, "\n\n");
  expect_one_line_error(r, 2, "no prompt");
  EXPECT_EQ(r.out, "");
}

TEST(CliRun, ModelByStoreName) {
  TempDir home;
  EnvChanges env = {{"A3S_POWER_HOME", home.path()}};
  CliResult pulled = run_cli({"pull", stories_model()}, "", env);
  ASSERT_EQ(pulled.status, 0) << pulled.err;
  CliResult r = run_cli(
      {"run", "stories260K", "Once upon a time", "--temperature", "0", "-n", "8", "-t", "1"}, "", env);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kGreedy8 + "\n");
}

TEST(CliRun, UnknownModelExitsTwo) {
  CliResult r = run_cli({"run", "no-such-model", "Once upon a time"});
  expect_one_line_error(r, 2, "not found");
  EXPECT_NE(r.err.find("no-such-model"), std::string::npos) << "the model name is named";
  EXPECT_EQ(r.err.find("Once upon"), std::string::npos) << "the prompt is never echoed";
  EXPECT_EQ(r.out, "");
}

TEST(CliRun, MissingPathExitsTwo) {
  CliResult r = run_cli({"run", "/nonexistent/dir/model.gguf", "hi"});
  expect_one_line_error(r, 2, "not found");
}

TEST(CliRun, CorruptModelExitsTwo) {
  CliResult r =
      run_cli({"run", std::string(A3S_SOURCE_DIR) + "/tests/data/gguf-corrupt/bad-magic.gguf", "hi"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
}

TEST(CliRun, BadFlagsExitTwo) {
  expect_one_line_error(run_cli({"run", stories_model(), "hi", "--ctx-size", "-1"}), 2, "ctx-size");
  expect_one_line_error(run_cli({"run", stories_model(), "hi", "--temperature", "-1"}), 2, "temperature");
  EXPECT_EQ(run_cli({"run"}).status, 2) << "the model is required";
}

TEST(CliRun, PromptLongerThanTheContextExitsTwo) {
  std::string prompt;
  for (int i = 0; i < 20; ++i) prompt += "Once upon a time ";
  CliResult r = run_cli({"run", stories_model(), prompt, "--ctx-size", "16", "-t", "1"});
  expect_one_line_error(r, 2, "context");
  EXPECT_EQ(r.err.find("Once upon"), std::string::npos);
}

TEST(CliRun, SystemMessageUsesThePlainConversationFormat) {
  CliResult with = run_cli({"run", stories_model(), "Once upon a time", "--system", "Tell a story.",
                            "--temperature", "0", "-n", "48", "-t", "1"});
  ASSERT_EQ(with.status, 0) << with.err;
  EXPECT_NE(with.out, kGreedy32 + "\n") << "the system message changes the rendered prompt";
  EXPECT_EQ(with.out.find("\nUser:"), std::string::npos) << "the reply stops at the next turn of the format";
  EXPECT_EQ(with.out.back(), '\n');
}

TEST(CliRun, SeededSamplingIsReproducible) {
  auto a = run_cli({"run", stories_model(), "Once upon a time", "--temperature", "1", "--seed", "42", "-n",
                    "16", "-t", "1"});
  auto b = run_cli({"run", stories_model(), "Once upon a time", "--temperature", "1", "--seed", "42", "-n",
                    "16", "-t", "1"});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_FALSE(a.out.empty());
}

// ---------------------------------------------------------------------------------------------
// chat and ps against the real server

class ServedStories : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{"--model", stories_model()});
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override { ASSERT_TRUE(server_->ready()) << "server did not start:\n" << server_->log(); }

  static CliResult chat(std::vector<std::string> args, const std::string& input = "",
                        const EnvChanges& env = {}) {
    std::vector<std::string> full = {"chat", "stories260K", "--url", server_->url()};
    full.insert(full.end(), args.begin(), args.end());
    return run_cli(full, input, env);
  }

  static std::unique_ptr<ServerProcess> server_;
};
std::unique_ptr<ServerProcess> ServedStories::server_;

TEST_F(ServedStories, ChatOneShotStreamsTheGreedyReply) {
  CliResult r = chat({"Once upon a time", "--temperature", "0", "-n", "32"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, kGreedy32 + "\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(ServedStories, ChatLinesAreTurnsWithHistory) {
  CliResult r =
      chat({"--temperature", "0", "-n", "8"}, "Once upon a time\nThe little dog ran to the park and\n");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(count_lines(r.out), 2) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), kGreedy8);
  // The second turn is answered in the context of the first: it differs from the same line alone.
  CliResult alone = chat({"The little dog ran to the park and", "--temperature", "0", "-n", "8"});
  ASSERT_EQ(alone.status, 0) << alone.err;
  EXPECT_NE(r.out.substr(r.out.find('\n') + 1), alone.out);
}

TEST_F(ServedStories, ChatClearAndByeInScriptedInput) {
  CliResult r = chat({"--temperature", "0", "-n", "8"},
                     "The little dog ran to the park and\n/clear\nOnce upon a time\n/bye\nignored\n");
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(count_lines(r.out), 2) << r.out;
  EXPECT_EQ(r.out.substr(r.out.find('\n') + 1), kGreedy8 + "\n") << "after /clear the history is empty again";
}

TEST_F(ServedStories, ChatUnknownModelPrintsTheServerError) {
  CliResult r = run_cli({"chat", "no-such-model", "hi", "--url", server_->url()});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err, "error: the model does not exist\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(ServedStories, ChatScriptStopsAtTheFirstServerError) {
  // The second line is longer than the server's context: the server answers 400 and the script
  // ends with exit 1 after the first reply.
  std::string huge;
  for (int i = 0; i < 700; ++i) huge += "Once upon a time ";
  CliResult r = chat({"--temperature", "0", "-n", "8"}, "Once upon a time\n" + huge + "\nnever sent\n");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, kGreedy8 + "\n");
  expect_one_line_error(r, 1, "context");
  EXPECT_EQ(r.err.find("Once upon"), std::string::npos) << "the prompt is never echoed";
}

TEST_F(ServedStories, ChatBadFlagsExitTwo) {
  expect_one_line_error(chat({"hi", "-n", "0"}), 2, "-n");
  expect_one_line_error(chat({"hi", "--temperature", "3"}), 2, "temperature");
  expect_one_line_error(run_cli({"chat", "stories260K", "hi", "--url", "ftp://127.0.0.1/"}), 2, "--url");
}

TEST_F(ServedStories, PsShowsTheLoadedModel) {
  CliResult r = run_cli({"ps", "--url", server_->url()});
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_EQ(count_lines(r.out), 2) << r.out;
  EXPECT_EQ(r.out.rfind("NAME", 0), 0u) << r.out;
  const std::string row = r.out.substr(r.out.find('\n') + 1);
  EXPECT_EQ(row.rfind("stories260K ", 0), 0u) << row;
  EXPECT_NE(row.find(" llama "), std::string::npos) << row;
  EXPECT_NE(row.find(" F32 "), std::string::npos) << row;
  EXPECT_NE(row.find(" 1.2 MB "), std::string::npos) << row;
  EXPECT_NE(row.find(" 2048 "), std::string::npos) << row;
  EXPECT_NE(row.find(" loaded\n"), std::string::npos) << row;
}

TEST_F(ServedStories, PsJson) {
  CliResult r = run_cli({"ps", "--url", server_->url(), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["models"].size(), 1u);
  const auto& m = j["models"][0];
  EXPECT_EQ(m["name"], "stories260K");
  EXPECT_EQ(m["state"], "loaded");
  EXPECT_EQ(m["architecture"], "llama");
  EXPECT_EQ(m["size_bytes"], 1185376);
  EXPECT_EQ(m["n_ctx"], 2048);
}

TEST_F(ServedStories, PsRejectsAnUnknownFormat) {
  EXPECT_EQ(run_cli({"ps", "--url", server_->url(), "--format", "yaml"}).status, 2);
}

// ---------------------------------------------------------------------------------------------
// API keys

TEST(CliChatAuth, KeyFromFlagOrEnvironment) {
  ServerProcess server({"--model", stories_model()}, {{"A3S_POWER_API_KEYS", "sk-right-key"}});
  ASSERT_TRUE(server.ready()) << server.log();
  const std::vector<std::string> base = {
      "chat", "stories260K", "Once upon a time", "--url", server.url(), "--temperature", "0", "-n", "8"};
  CliResult none = run_cli(base);
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, "error: a valid API key is required (Authorization: Bearer <key>, or x-api-key: <key>)\n");

  auto with_flag = base;
  with_flag.insert(with_flag.end(), {"--api-key", "sk-wrong-key"});
  CliResult wrong = run_cli(with_flag);
  EXPECT_EQ(wrong.status, 1);
  EXPECT_EQ(wrong.err.find("sk-wrong-key"), std::string::npos) << "the key is never echoed";

  CliResult env = run_cli(base, "", {{"A3S_POWER_API_KEY", "sk-right-key"}});
  ASSERT_EQ(env.status, 0) << env.err;
  EXPECT_EQ(env.out, kGreedy8 + "\n");

  // /health shows the models only with a key: ps needs one too.
  CliResult ps_none = run_cli({"ps", "--url", server.url()});
  EXPECT_EQ(ps_none.status, 1);
  EXPECT_NE(ps_none.err.find("a valid API key is required"), std::string::npos) << ps_none.err;
  EXPECT_EQ(run_cli({"ps", "--url", server.url()}, "", {{"A3S_POWER_API_KEY", "sk-right-key"}}).status, 0);
}

// ---------------------------------------------------------------------------------------------
// no server

TEST(CliNoServer, ChatAgainstAClosedPortExitsTwo) {
  const std::string url = "http://127.0.0.1:" + std::to_string(testing::unused_port());
  CliResult r = run_cli({"chat", "stories260K", "hi", "--url", url});
  expect_one_line_error(r, 2, "connection refused");
  CliResult lines = run_cli({"chat", "stories260K", "--url", url}, "hello\n");
  expect_one_line_error(lines, 2, "connection refused");
  EXPECT_EQ(lines.err.find("hello"), std::string::npos);
}

TEST(CliNoServer, PsAgainstAClosedPortExitsTwo) {
  CliResult r = run_cli({"ps", "--url", "http://127.0.0.1:" + std::to_string(testing::unused_port())});
  expect_one_line_error(r, 2, "connection refused");
}

TEST(CliNoServer, PlainHttpToARemoteHostIsRefused) {
  CliResult r = run_cli({"chat", "m", "hi", "--url", "http://192.0.2.1:11434"});
  expect_one_line_error(r, 2, "loopback");
}

}  // namespace
}  // namespace a3s::power::client_cli
