// The SSE parser against the WHATWG event-stream rules, with every way a body can be chunked.
#include "http_client/sse_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power::client {
namespace {

std::vector<SseEvent> parse_in_pieces(std::string_view body, std::size_t piece) {
  SseParser p;
  std::vector<SseEvent> out;
  for (std::size_t i = 0; i < body.size(); i += piece) {
    for (auto& e : p.feed(body.substr(i, piece))) out.push_back(std::move(e));
  }
  return out;
}

std::vector<std::string> datas(const std::vector<SseEvent>& events) {
  std::vector<std::string> d;
  for (const auto& e : events) d.push_back(e.data);
  return d;
}

TEST(SseParser, OneEventPerBlankLine) {
  SseParser p;
  auto ev = p.feed("data: {\"a\":1}\n\ndata: [DONE]\n\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].data, "{\"a\":1}");
  EXPECT_EQ(ev[0].type, "message");
  EXPECT_EQ(ev[1].data, "[DONE]");
  EXPECT_FALSE(p.has_partial_event());
}

TEST(SseParser, EveryChunkingGivesTheSameEvents) {
  const std::string body =
      ": keep-alive\r\n"
      "event: update\r\n"
      "id: 7\r\n"
      "data: first line\r\n"
      "data: second line\r\n"
      "\r\n"
      "data:no space\n"
      "\n"
      "data: caf\xC3\xA9 \xE2\x9C\x93\r"
      "\r"
      "data: [DONE]\n\n";
  const std::vector<std::string> expected = {"first line\nsecond line", "no space",
                                             "caf\xC3\xA9 \xE2\x9C\x93", "[DONE]"};
  for (std::size_t piece = 1; piece <= body.size(); ++piece) {
    auto ev = parse_in_pieces(body, piece);
    ASSERT_EQ(datas(ev), expected) << "piece size " << piece;
    EXPECT_EQ(ev[0].type, "update");
    EXPECT_EQ(ev[0].last_event_id, "7");
    EXPECT_EQ(ev[1].type, "message") << "the event type is reset after a dispatch";
    EXPECT_EQ(ev[3].last_event_id, "7") << "the last event id persists";
  }
}

TEST(SseParser, CrAtChunkEndThenLfIsOneLineEnding) {
  SseParser p;
  EXPECT_TRUE(p.feed("data: a\r").empty());
  EXPECT_TRUE(p.feed("\n").empty()) << "CR LF split across chunks is one line ending, not two";
  auto ev = p.feed("\r\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, "a");
}

TEST(SseParser, BareCrEndsLines) {
  SseParser p;
  auto ev = p.feed("data: x\r\rdata: y\r\r");
  EXPECT_EQ(datas(ev), (std::vector<std::string>{"x", "y"}));
}

TEST(SseParser, MergedChunkWithManyEvents) {
  std::string body;
  for (int i = 0; i < 100; ++i) body += "data: " + std::to_string(i) + "\n\n";
  SseParser p;
  auto ev = p.feed(body);
  ASSERT_EQ(ev.size(), 100u);
  EXPECT_EQ(ev[42].data, "42");
}

TEST(SseParser, CommentsAndUnknownFieldsAreIgnored) {
  SseParser p;
  auto ev = p.feed(":comment\n: another\nfoo: bar\nretry: 1500\nretry: 1x\ndata: ok\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, "ok");
  ASSERT_TRUE(ev[0].retry_ms.has_value());
  EXPECT_EQ(*ev[0].retry_ms, 1500u) << "a retry value with a non-digit is ignored";
}

TEST(SseParser, CommentOnlyBlockDispatchesNothing) {
  SseParser p;
  EXPECT_TRUE(p.feed(": ping\n\n: ping\n\n").empty());
  EXPECT_TRUE(p.feed("event: x\n\n").empty()) << "no data → no event";
  auto ev = p.feed("data: y\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].type, "message") << "the type of an undispatched event does not leak";
}

TEST(SseParser, EmptyDataLineDispatchesEmptyData) {
  SseParser p;
  auto ev = p.feed("data\n\ndata:\ndata:\n\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].data, "");
  EXPECT_EQ(ev[1].data, "\n");
}

TEST(SseParser, OnlyOneLeadingSpaceIsRemoved) {
  SseParser p;
  auto ev = p.feed("data:  two spaces\ndata:x:y\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, " two spaces\nx:y");
}

TEST(SseParser, LeadingByteOrderMarkIsSkippedEvenWhenSplit) {
  const std::string body =
      "\xEF\xBB\xBF"
      "data: a\n\n";
  for (std::size_t piece = 1; piece <= 4; ++piece) {
    EXPECT_EQ(datas(parse_in_pieces(body, piece)), (std::vector<std::string>{"a"})) << piece;
  }
  // A BOM-like prefix that is not a BOM is kept as text; a BOM later in the stream is data.
  SseParser p;
  auto ev = p.feed(
      "\xEF\xBB"
      "data: a\n\ndata: \xEF\xBB\xBFz\n\n");
  ASSERT_EQ(ev.size(), 1u) << "the first line's field name is not 'data'";
  EXPECT_EQ(ev[0].data, "\xEF\xBB\xBFz");
}

TEST(SseParser, UnterminatedEventIsReportedAsPartial) {
  SseParser p;
  EXPECT_TRUE(p.feed("data: half").empty());
  EXPECT_TRUE(p.has_partial_event());
  SseParser q;
  EXPECT_TRUE(q.feed("data: whole line but no blank line\n").empty());
  EXPECT_TRUE(q.has_partial_event());
  auto ev = q.feed("\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(q.has_partial_event());
}

TEST(SseParser, IdWithNulIsIgnored) {
  SseParser p;
  std::string body = "id: 1\ndata: a\n\nid: 2";
  body += '\0';
  body += "\ndata: b\n\n";
  auto ev = p.feed(body);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].last_event_id, "1");
}

TEST(SseParser, OverlongLineIsAnError) {
  SseParser p(64);
  EXPECT_NO_THROW(p.feed("data: " + std::string(40, 'x') + "\n"));
  try {
    p.feed(std::string(100, 'y'));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "server_error");
  }
  SseParser q(64);
  EXPECT_THROW(q.feed(std::string(50, 'z') + std::string(50, 'z') + "\n"), Error);
}

TEST(SseParser, OversizedEventIsAnError) {
  SseParser p(64);
  std::string body;
  for (int i = 0; i < 10; ++i) body += "data: 0123456789\n";
  EXPECT_THROW(p.feed(body), Error);
}

TEST(SseParser, HandlerExceptionPropagates) {
  SseParser p;
  EXPECT_THROW(p.feed("data: a\n\n", [](SseEvent&&) { throw std::runtime_error("stop"); }),
               std::runtime_error);
}

}  // namespace
}  // namespace a3s::power::client
