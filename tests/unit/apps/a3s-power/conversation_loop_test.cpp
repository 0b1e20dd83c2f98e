// The conversation loop with a scripted responder: history, commands, modes and errors.
#include "a3s-power/conversation_loop.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "a3s-power/line_reader.h"
#include "chat/messages.h"

namespace a3s::power::client {
namespace {

// A pipe whose read end feeds a LineReader; the text is written up front and the write end closed.
class InputPipe {
 public:
  explicit InputPipe(const std::string& text) {
    EXPECT_EQ(pipe(fds_), 0);
    EXPECT_EQ(write(fds_[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fds_[1]);
  }
  ~InputPipe() { close(fds_[0]); }
  int fd() const { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
};

struct Harness {
  std::string out, err;
  std::vector<nlohmann::json> seen;  // messages given to each turn
  int fail_on_turn = -1;
  ErrorCode fail_code = codes::kServerError;

  ConversationLoop make(std::optional<std::string> system = std::nullopt) {
    LoopOptions o;
    o.system = std::move(system);
    o.out = [this](std::string_view t) { out += t; };
    o.err = [this](std::string_view t) { err += t; };
    o.fatal = [](const Error& e) { return e.code() == "server_unreachable"; };
    return ConversationLoop(o, [this](const Turn& t) {
      seen.push_back(nlohmann::json(chat::to_json(t.messages)));
      if (static_cast<int>(seen.size()) == fail_on_turn) throw Error(fail_code, "boom");
      std::string reply = "reply" + std::to_string(seen.size());
      t.emit(reply);
      return reply;
    });
  }
};

TEST(ConversationLoop, OneShot) {
  Harness h;
  auto loop = h.make();
  loop.one_shot("Once upon a time");
  EXPECT_EQ(h.out, "reply1\n");
  ASSERT_EQ(h.seen.size(), 1u);
  EXPECT_EQ(h.seen[0], nlohmann::json::parse(R"([{"role":"user","content":"Once upon a time"}])"));
  EXPECT_EQ(loop.messages().size(), 2u);
  EXPECT_EQ(loop.messages()[1].content, "reply1");
}

TEST(ConversationLoop, SystemMessageComesFirst) {
  Harness h;
  auto loop = h.make("Be brief.");
  loop.one_shot("hi");
  EXPECT_EQ(h.seen[0][0], nlohmann::json::parse(R"({"role":"system","content":"Be brief."})"));
  EXPECT_EQ(h.seen[0][1]["role"], "user");
}

TEST(ConversationLoop, LinesKeepHistoryAndHonourCommands) {
  Harness h;
  auto loop = h.make("sys");
  InputPipe in("first\n\n  \nsecond\r\n/clear\nthird\n/bye\nnever\n");
  LineReader r(in.fd());
  loop.lines(r);
  EXPECT_EQ(h.out, "reply1\nreply2\nreply3\n");
  ASSERT_EQ(h.seen.size(), 3u);
  EXPECT_EQ(h.seen[1].size(), 4u) << "system, first, reply1, second";
  EXPECT_EQ(h.seen[1][2], nlohmann::json::parse(R"({"role":"assistant","content":"reply1"})"));
  EXPECT_EQ(h.seen[1][3]["content"], "second") << "CR of a CRLF line ending is dropped";
  EXPECT_EQ(h.seen[2].size(), 2u) << "/clear keeps only the system message";
  EXPECT_EQ(h.seen[2][1]["content"], "third");
  EXPECT_TRUE(h.err.empty());
}

TEST(ConversationLoop, LastLineWithoutNewlineIsATurn) {
  Harness h;
  auto loop = h.make();
  InputPipe in("a\nb");
  LineReader r(in.fd());
  loop.lines(r);
  EXPECT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(h.seen[1][2]["content"], "b");
}

TEST(ConversationLoop, LinesStopAtTheFirstErrorAndDropTheFailedTurn) {
  Harness h;
  h.fail_on_turn = 2;
  auto loop = h.make();
  InputPipe in("one\ntwo\nthree\n");
  LineReader r(in.fd());
  try {
    loop.lines(r);
    FAIL() << "expected the error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "server_error");
  }
  EXPECT_EQ(h.seen.size(), 2u);
  EXPECT_EQ(loop.messages().size(), 2u) << "the failed user message is not kept";
  EXPECT_EQ(h.out, "reply1\n");
}

TEST(ConversationLoop, PartialReplyIsEndedBeforeAnError) {
  std::string out;
  LoopOptions o;
  o.out = [&out](std::string_view t) { out += t; };
  ConversationLoop loop(o, [](const Turn& t) -> std::string {
    t.emit("half a rep");
    throw Error(codes::kServerError, "the stream ended");
  });
  EXPECT_THROW(loop.one_shot("hi"), Error);
  EXPECT_EQ(out, "half a rep\n");
  EXPECT_TRUE(loop.messages().empty());
}

TEST(ConversationLoop, WholeInputIsOnePrompt) {
  Harness h;
  auto loop = h.make();
  InputPipe in("line one\nline two\n\n");
  LineReader r(in.fd());
  loop.whole_input(r);
  ASSERT_EQ(h.seen.size(), 1u);
  EXPECT_EQ(h.seen[0][0]["content"], "line one\nline two");
  EXPECT_EQ(h.out, "reply1\n");
}

TEST(ConversationLoop, EmptyWholeInputIsAnError) {
  Harness h;
  auto loop = h.make();
  InputPipe in(" \n\n");
  LineReader r(in.fd());
  try {
    loop.whole_input(r);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
  EXPECT_TRUE(h.seen.empty());
}

TEST(ConversationLoop, InteractiveKeepsGoingAfterAnError) {
  Harness h;
  h.fail_on_turn = 1;
  auto loop = h.make();
  InputPipe in("hello\n/?\n/nonsense\nagain\n\"\"\"multi\nline\nmessage\"\"\"\n/bye\n");
  LineReader r(in.fd());
  loop.interactive(r);
  EXPECT_EQ(h.err, "error: boom\nUnknown command (type /? for help)\n");
  ASSERT_EQ(h.seen.size(), 3u);
  EXPECT_EQ(h.seen[1].size(), 1u) << "the failed turn left no trace in the history";
  EXPECT_EQ(h.seen[1][0]["content"], "again");
  EXPECT_EQ(h.seen[2].back()["content"], "multi\nline\nmessage");
  EXPECT_NE(h.out.find(">>> "), std::string::npos);
  EXPECT_NE(h.out.find("... "), std::string::npos);
  EXPECT_NE(h.out.find("/clear"), std::string::npos) << "help lists the commands";
  EXPECT_NE(h.out.find("reply2\n\n"), std::string::npos);
  // The error message never carries the user's text.
  EXPECT_EQ(h.err.find("hello"), std::string::npos);
}

TEST(ConversationLoop, InteractiveEndsAtEof) {
  Harness h;
  auto loop = h.make();
  InputPipe in("hi\n");
  LineReader r(in.fd());
  loop.interactive(r);
  EXPECT_EQ(h.out, ">>> reply1\n\n>>> \n");
}

TEST(ConversationLoop, FatalErrorsEndTheInteractiveSession) {
  Harness h;
  h.fail_on_turn = 1;
  h.fail_code = codes::kServerUnreachable;
  auto loop = h.make();
  InputPipe in("hi\nmore\n");
  LineReader r(in.fd());
  EXPECT_THROW(loop.interactive(r), Error);
  EXPECT_EQ(h.seen.size(), 1u);
}

TEST(LineReader, RejectsOversizedInput) {
  InputPipe in(std::string(100, 'x'));
  LineReader r(in.fd(), 50);
  std::string line;
  EXPECT_THROW(r.read_line(line), Error);
}

}  // namespace
}  // namespace a3s::power::client
