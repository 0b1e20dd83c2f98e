// Interactive sessions on a pseudo-terminal: prompt, replies, commands, Ctrl+C and Ctrl+D.
#include <gtest/gtest.h>

#include "cli_process.h"

namespace a3s::power::client_cli {
namespace {

TEST(CliRunInteractive, ConversationCommandsAndExit) {
  PtySession s({"run", stories_model(), "--temperature", "0", "-n", "8", "-t", "1"});
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  s.send("Once upon a time\n");
  auto reply = s.expect(">>> ");
  ASSERT_TRUE(reply) << s.transcript();
  EXPECT_NE(reply->find(kGreedy8), std::string::npos) << *reply;

  // A second turn sees the history (plain multi-message format) and still answers.
  s.send("Lily and Ben were\n");
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();

  s.send("/?\n");
  auto help = s.expect(">>> ");
  ASSERT_TRUE(help) << s.transcript();
  EXPECT_NE(help->find("/bye"), std::string::npos) << *help;

  s.send("/clear\n");
  ASSERT_TRUE(s.expect("Cleared session context")) << s.transcript();
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  // After /clear a single user message again renders as the bare text: the greedy continuation.
  s.send("Once upon a time\n");
  reply = s.expect(">>> ");
  ASSERT_TRUE(reply) << s.transcript();
  EXPECT_NE(reply->find(kGreedy8), std::string::npos) << *reply;

  s.send("/bye\n");
  EXPECT_EQ(s.wait(), 0) << s.transcript();
}

TEST(CliRunInteractive, CtrlCAtThePromptAndCtrlDExits) {
  PtySession s({"run", stories_model(), "--temperature", "0", "-n", "8", "-t", "1"});
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  s.send("half a line\x03");
  ASSERT_TRUE(s.expect("Use Ctrl+D or /bye to exit.")) << s.transcript();
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  s.send("\x04");  // EOF on an empty line
  EXPECT_EQ(s.wait(), 0) << s.transcript();
  EXPECT_EQ(s.transcript().find("error"), std::string::npos) << s.transcript();
}

TEST(CliRunInteractive, CtrlCStopsALongReplyAndTheSessionGoesOn) {
  // No -n: the reply would run until the context is full; Ctrl+C stops it.
  PtySession s({"run", stories_model(), "--temperature", "0", "-t", "1"});
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  s.send("Once upon a time\n");
  ASSERT_TRUE(s.expect(", there was")) << s.transcript();  // the reply is streaming
  s.send("\x03");
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  s.send("/bye\n");
  EXPECT_EQ(s.wait(), 0) << s.transcript();
}

TEST(CliChatInteractive, ErrorsKeepTheSessionAlive) {
  ServerProcess server({"--model", stories_model()});
  ASSERT_TRUE(server.ready()) << server.log();
  PtySession s({"chat", "no-such-model", "--url", server.url()});
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript();
  s.send("hello\n");
  ASSERT_TRUE(s.expect("error: the model does not exist")) << s.transcript();
  ASSERT_TRUE(s.expect(">>> ")) << s.transcript() << "\nthe session goes on after a server error";
  s.send("/bye\n");
  EXPECT_EQ(s.wait(), 0) << s.transcript();

  PtySession ok({"chat", "stories260K", "--url", server.url(), "--temperature", "0", "-n", "8"});
  ASSERT_TRUE(ok.expect(">>> ")) << ok.transcript();
  ok.send("Once upon a time\n");
  auto reply = ok.expect(">>> ");
  ASSERT_TRUE(reply) << ok.transcript();
  EXPECT_NE(reply->find(kGreedy8), std::string::npos) << *reply;
  ok.send("\x04");
  EXPECT_EQ(ok.wait(), 0) << ok.transcript();
}

}  // namespace
}  // namespace a3s::power::client_cli
