// Decoding of streamed chat completion chunks and the request body.
#include "http_client/chat_stream.h"

#include <gtest/gtest.h>

#include <string>

#include "http_client/server_error.h"

namespace a3s::power::client {
namespace {

SseEvent data(std::string d, std::string type = "message") {
  SseEvent e;
  e.data = std::move(d);
  e.type = std::move(type);
  return e;
}

TEST(ChatStreamDecoder, CollectsDeltasUntilDone) {
  ChatStreamDecoder dec;
  std::string seen;
  auto on = [&](std::string_view t) { seen += std::string(t) + "|"; };
  EXPECT_TRUE(dec.on_event(
      data(
          R"({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})"),
      on));
  EXPECT_TRUE(
      dec.on_event(data(R"({"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]})"), on));
  EXPECT_TRUE(dec.on_event(data(R"({"choices":[{"index":0,"delta":{"content":"lo \u00e9"}}]})"), on));
  EXPECT_TRUE(dec.on_event(data(R"({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]})"), on));
  EXPECT_TRUE(dec.on_event(data(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}})"), on));
  EXPECT_FALSE(dec.done());
  EXPECT_FALSE(dec.on_event(data("[DONE]"), on));
  EXPECT_TRUE(dec.done());
  EXPECT_EQ(seen, "Hel|lo \xC3\xA9|") << "empty deltas are not reported";
  EXPECT_EQ(dec.content(), "Hello \xC3\xA9");
  EXPECT_EQ(dec.finish_reason(), "length");
  // Anything after [DONE] is ignored.
  EXPECT_FALSE(dec.on_event(data(R"({"choices":[{"delta":{"content":"late"}}]})"), on));
  EXPECT_EQ(dec.content(), "Hello \xC3\xA9");
}

TEST(ChatStreamDecoder, ErrorEventThrowsTheServersMessage) {
  ChatStreamDecoder dec;
  try {
    dec.on_event(
        data(
            R"({"error":{"message":"the server is shutting down","type":"server_error","code":"service_unavailable","param":null}})"),
        {});
    FAIL() << "expected a ServerError";
  } catch (const ServerError& e) {
    EXPECT_EQ(e.code(), "server_error");
    EXPECT_EQ(e.server_code(), "service_unavailable");
    EXPECT_STREQ(e.what(), "the server is shutting down");
  }
}

TEST(ChatStreamDecoder, MalformedDataIsAnError) {
  ChatStreamDecoder dec;
  EXPECT_THROW(dec.on_event(data("not json"), {}), ServerError);
  EXPECT_THROW(dec.on_event(data("[1,2]"), {}), ServerError);
  // Shapes without usable content are tolerated.
  EXPECT_TRUE(dec.on_event(data(R"({"choices":"x"})"), {}));
  EXPECT_TRUE(dec.on_event(data(R"({"choices":[{"delta":{"content":42}}]})"), {}));
  EXPECT_TRUE(dec.on_event(data(R"({"choices":[7]})"), {}));
  EXPECT_EQ(dec.content(), "");
}

TEST(ChatStreamDecoder, OtherEventTypesAreIgnored) {
  ChatStreamDecoder dec;
  EXPECT_TRUE(dec.on_event(data("not json", "ping"), {}));
  EXPECT_TRUE(dec.on_event(data("[DONE]", "ping"), {}));
  EXPECT_FALSE(dec.done());
}

TEST(ChatRequestBody, HasStreamTrueAndOnlyTheSetOptions) {
  ChatRequest req;
  req.model = "stories260K";
  req.messages = nlohmann::json::array({{{"role", "user"}, {"content", "hi"}}});
  nlohmann::json j = chat_request_body(req);
  EXPECT_EQ(j["model"], "stories260K");
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["messages"], req.messages);
  EXPECT_FALSE(j.contains("temperature"));
  EXPECT_FALSE(j.contains("max_tokens"));
  EXPECT_FALSE(j.contains("seed"));
  req.temperature = 0.0;
  req.max_tokens = 32;
  req.seed = 7;
  j = chat_request_body(req);
  EXPECT_EQ(j["temperature"], 0.0);
  EXPECT_EQ(j["max_tokens"], 32);
  EXPECT_EQ(j["seed"], 7);
}

}  // namespace
}  // namespace a3s::power::client
