// `ps`'s model status fetched over the HTTP client from a loopback server with scripted answers: the
// /v1/models fallback when /health is missing, and a server error.
#include <gtest/gtest.h>

#include "a3s-power/model_status.h"
#include "http_client/http_client.h"
#include "http_client/server_error.h"
#include "support/fake_http_server.h"

namespace a3s::power::client {
namespace {

using testing::http_response;
using testing::ScriptedHttpServer;

HttpClient client_for(const ScriptedHttpServer& s) {
  return HttpClient(ClientOptions{.url = ServerUrl::parse(s.url()), .api_key = ""});
}

TEST(ModelStatusFetch, FallsBackToModelListWhenHealthIsMissing) {
  ScriptedHttpServer server(std::vector<std::vector<std::string>>{
      {http_response(404, "application/json", R"({"error":{"message":"no such route","code":"not_found"}})")},
      {http_response(200, "application/json", R"({"object":"list","data":[{"id":"m1","loaded":true}]})")}});
  HttpClient http = client_for(server);
  auto models = fetch_model_status(http);
  ASSERT_EQ(models.size(), 1u);
  EXPECT_EQ(models[0].name, "m1");
  EXPECT_TRUE(models[0].loaded);
  ASSERT_EQ(server.requests().size(), 2u);
  EXPECT_EQ(server.requests()[0].rfind("GET /health ", 0), 0u);
  EXPECT_EQ(server.requests()[1].rfind("GET /v1/models ", 0), 0u);
}

TEST(ModelStatusFetch, ServerErrorIsReported) {
  ScriptedHttpServer server({http_response(
      500, "application/json", R"({"error":{"message":"internal server error","code":"internal_error"}})")});
  HttpClient http = client_for(server);
  try {
    fetch_model_status(http);
    FAIL();
  } catch (const ServerError& e) {
    EXPECT_STREQ(e.what(), "internal server error");
  }
}

}  // namespace
}  // namespace a3s::power::client
