// The HTTP client and chat streaming against a loopback server with scripted answers: split
// events, error bodies and events, truncated streams, refused connections, cancellation.
#include "http_client/http_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include "a3s/power/error.h"
#include "http_client/chat_stream.h"
#include "http_client/server_error.h"
#include "support/fake_http_server.h"

namespace a3s::power::client {
namespace {

using testing::chunk;
using testing::http_chunked_head;
using testing::http_response;
using testing::ScriptedHttpServer;

HttpClient client_for(const ScriptedHttpServer& s, const std::string& key = "") {
  return HttpClient(ClientOptions{.url = ServerUrl::parse(s.url()), .api_key = key});
}

ChatRequest hello_request() {
  ChatRequest r;
  r.model = "stories260K";
  r.messages = nlohmann::json::array({{{"role", "user"}, {"content", "Once upon a time"}}});
  r.temperature = 0.0;
  return r;
}

std::string delta_event(const std::string& text) {
  return "data: " + nlohmann::json{{"choices", {{{"index", 0}, {"delta", {{"content", text}}}}}}}.dump() +
         "\n\n";
}

TEST(HttpClient, StreamsEventsSplitAnywhere) {
  // The SSE text of three events, cut into pieces that split lines, CRLFs and a UTF-8 character.
  const std::string sse =
      ": keep-alive\r\n\r\n" + delta_event("Hel") + delta_event("lo \xC3\xA9") +
      "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n" +
      "data: [DONE]\n\n";
  std::vector<std::string> pieces = {http_chunked_head(200, "text/event-stream; charset=utf-8")};
  for (std::size_t i = 0; i < sse.size(); i += 7) pieces.push_back(chunk(sse.substr(i, 7)));
  pieces.push_back(chunk(""));
  ScriptedHttpServer server(pieces);
  HttpClient http = client_for(server, "sk-test-123");
  std::vector<std::string> deltas;
  ChatReply reply = stream_chat(http, hello_request(), [&](std::string_view t) { deltas.emplace_back(t); });
  EXPECT_EQ(reply.content, "Hello \xC3\xA9");
  EXPECT_EQ(reply.finish_reason, "stop");
  EXPECT_FALSE(reply.cancelled);
  EXPECT_EQ(deltas, (std::vector<std::string>{"Hel", "lo \xC3\xA9"}));

  ASSERT_EQ(server.requests().size(), 1u);
  const std::string req = server.requests()[0];
  EXPECT_EQ(req.rfind("POST /v1/chat/completions HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("Authorization: Bearer sk-test-123\r\n"), std::string::npos);
  EXPECT_NE(req.find("Accept: text/event-stream\r\n"), std::string::npos);
  const auto body = nlohmann::json::parse(req.substr(req.find("\r\n\r\n") + 4));
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["model"], "stories260K");
  EXPECT_EQ(body["temperature"], 0.0);
}

TEST(HttpClient, GetReturnsTheResponseHeaders) {
  ScriptedHttpServer server({"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                             "TCB-Info-Issuer-Chain:  -----BEGIN%20CERTIFICATE----- \r\nX-Twice: 1\r\n"
                             "X-Twice: 2\r\nConnection: close\r\n\r\n{}"});
  const HttpResponse r = client_for(server).get("/tdx/certification/v4/tcb?fmspc=00");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "{}");
  // Names are matched case-insensitively; values are trimmed, not decoded.
  EXPECT_EQ(r.header("tcb-info-issuer-chain"), "-----BEGIN%20CERTIFICATE-----");
  EXPECT_EQ(r.header("TCB-INFO-ISSUER-CHAIN"), "-----BEGIN%20CERTIFICATE-----");
  EXPECT_EQ(r.header("x-twice"), "1");
  EXPECT_EQ(r.header("x-missing"), "");
  std::size_t twice = 0;
  for (const auto& [k, v] : r.headers) twice += k == "x-twice";
  EXPECT_EQ(twice, 2u);
}

TEST(HttpClient, NoAuthorizationHeaderWithoutKey) {
  ScriptedHttpServer server({http_response(200, "application/json", R"({"object":"list","data":[]})")});
  HttpClient http = client_for(server);
  EXPECT_TRUE(http.get_json("/v1/models")["data"].empty());
  EXPECT_EQ(server.requests()[0].find("Authorization"), std::string::npos);
}

TEST(HttpClient, ErrorStatusCarriesTheServersMessage) {
  ScriptedHttpServer server({http_response(
      404, "application/json",
      R"({"error":{"message":"the model does not exist","type":"not_found_error","code":"model_not_found","param":"model"}})")});
  HttpClient http = client_for(server);
  try {
    stream_chat(http, hello_request(), {});
    FAIL() << "expected a ServerError";
  } catch (const ServerError& e) {
    EXPECT_EQ(e.code(), "server_error");
    EXPECT_EQ(e.http_status(), 404);
    EXPECT_EQ(e.server_code(), "model_not_found");
    EXPECT_STREQ(e.what(), "the model does not exist");
  }
}

TEST(HttpClient, ErrorEventInsideTheStream) {
  ScriptedHttpServer server(
      {http_chunked_head(200, "text/event-stream"), chunk(delta_event("Once")),
       chunk(R"(data: {"error":{"message":"the server is shutting down","code":"service_unavailable"}})"
             "\n\n"),
       chunk("")});
  HttpClient http = client_for(server);
  std::string seen;
  try {
    stream_chat(http, hello_request(), [&](std::string_view t) { seen += t; });
    FAIL() << "expected a ServerError";
  } catch (const ServerError& e) {
    EXPECT_STREQ(e.what(), "the server is shutting down");
    EXPECT_EQ(e.server_code(), "service_unavailable");
  }
  EXPECT_EQ(seen, "Once") << "deltas before the error were delivered";
}

TEST(HttpClient, StreamEndingWithoutDoneIsAnError) {
  ScriptedHttpServer server(
      {http_chunked_head(200, "text/event-stream"), chunk(delta_event("a")), chunk("")});
  HttpClient http = client_for(server);
  try {
    stream_chat(http, hello_request(), {});
    FAIL();
  } catch (const ServerError& e) {
    EXPECT_NE(std::string(e.what()).find("ended before"), std::string::npos) << e.what();
  }
}

TEST(HttpClient, ConnectionCutMidStreamIsAnError) {
  // Chunked framing that stops in the middle of a chunk.
  ScriptedHttpServer server({http_chunked_head(200, "text/event-stream"), "40\r\ndata: {\"cho"});
  HttpClient http = client_for(server);
  EXPECT_THROW(stream_chat(http, hello_request(), {}), ServerError);
}

TEST(HttpClient, SuccessThatIsNotAnEventStream) {
  ScriptedHttpServer server({http_response(200, "application/json", R"({"id":"x","choices":[]})")});
  HttpClient http = client_for(server);
  try {
    stream_chat(http, hello_request(), {});
    FAIL();
  } catch (const ServerError& e) {
    EXPECT_NE(std::string(e.what()).find("event stream"), std::string::npos) << e.what();
  }
}

TEST(HttpClient, HandlerCanStopTheStream) {
  ScriptedHttpServer server({http_chunked_head(200, "text/event-stream"), chunk(delta_event("a")),
                             chunk(delta_event("b")), testing::kHold});
  HttpClient http = client_for(server);
  int events = 0;
  StreamEnd end = http.post_stream("/v1/chat/completions", nlohmann::json::object(), [&](const SseEvent&) {
    ++events;
    return false;
  });
  EXPECT_EQ(end, StreamEnd::Stopped);
  EXPECT_EQ(events, 1);
}

TEST(HttpClient, CancelFlagStopsAWaitingStream) {
  // The server sends one delta and then goes silent; the caller cancels after the first delta.
  ScriptedHttpServer server(
      {http_chunked_head(200, "text/event-stream"), chunk(delta_event("first")), testing::kHold});
  HttpClient http = client_for(server);
  std::atomic<bool> cancel{false};
  ChatReply reply = stream_chat(
      http, hello_request(), [&](std::string_view) { cancel = true; }, &cancel);
  EXPECT_TRUE(reply.cancelled);
  EXPECT_EQ(reply.content, "first");
  EXPECT_EQ(reply.finish_reason, "cancelled");
}

TEST(HttpClient, ConnectionRefusedIsUnreachable) {
  HttpClient http(ClientOptions{.url = ServerUrl::parse("http://127.0.0.1:" + std::to_string(testing::unused_port())),
                                .api_key = ""});
  try {
    stream_chat(http, hello_request(), {});
    FAIL();
  } catch (const ServerError&) {
    FAIL() << "a refused connection is not a server error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "server_unreachable");
    EXPECT_NE(std::string(e.what()).find("connection refused"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_EQ(exit_code_for("server_unreachable"), 2);
  EXPECT_EQ(exit_code_for("server_error"), 1);
}

TEST(HttpClient, InvalidJsonBody) {
  ScriptedHttpServer server({http_response(200, "application/json", "{not json")});
  HttpClient http = client_for(server);
  EXPECT_THROW(http.get_json("/v1/models"), ServerError);
}

TEST(HttpClient, ApiKeyWithControlCharactersIsRefused) {
  try {
    HttpClient http(
        ClientOptions{.url = ServerUrl::parse("http://127.0.0.1:1"), .api_key = "abc\r\nX-Evil: 1"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
    EXPECT_EQ(std::string(e.what()).find("abc"), std::string::npos) << "the key is never echoed";
  }
}

}  // namespace
}  // namespace a3s::power::client
