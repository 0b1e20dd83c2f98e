// run_completion wipes the slot context when a request ends — after a generation and after a failure
// that used the context — and its context_length_exceeded message names the context, not the prompt's
// token count.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <string>

#include "support/fake_runtime.h"
#include "runtime/completion.h"

namespace a3s::power::runtime {
namespace {

struct RecordingSink final : CompletionSink {
  void started(std::span<const Token>) override {}
  bool delta(std::string_view) override { return true; }
  void finished(const CompletionResult& r) override { text = r.text; }
  void failed(const Error& e) override { error.emplace(e); }
  std::string text;
  std::optional<Error> error;
};

TEST(CompletionWipe, TheContextIsWipedAfterEveryRequest) {
  testing::FakeOptions opts;
  opts.n_ctx = 64;
  auto stats = opts.stats;
  auto model = std::make_shared<testing::FakeRuntime>("fake", opts);
  Slot slot(0);
  std::atomic<bool> cancel{false};

  CompletionRequest ok;
  ok.model = "fake";
  ok.prompt = "CANARY-a1b2 hello";
  RecordingSink done;
  run_completion(slot, model, ok, cancel, done);
  EXPECT_FALSE(done.error);
  EXPECT_FALSE(done.text.empty());
  EXPECT_EQ(stats->contexts_wiped.load(), 1);

  CompletionRequest too_long;
  too_long.model = "fake";
  too_long.prompt = std::string(200, 'x');
  RecordingSink failed;
  run_completion(slot, model, too_long, cancel, failed);
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(failed.error->code(), "context_length_exceeded");
  const std::string msg = failed.error->what();
  EXPECT_NE(msg.find("64"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("201"), std::string::npos) << "no prompt token count: " << msg;
  EXPECT_EQ(stats->contexts_wiped.load(), 2);
}

}  // namespace
}  // namespace a3s::power::runtime
