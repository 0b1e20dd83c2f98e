// Server error bodies → one-line client errors.
#include "http_client/server_error.h"

#include <gtest/gtest.h>

namespace a3s::power::client {
namespace {

TEST(ServerError, OpenAiErrorBody) {
  ServerError e = server_error_from_response(
      404,
      R"({"error":{"message":"the model does not exist","type":"not_found_error","code":"model_not_found","param":"model"}})");
  EXPECT_EQ(e.code(), "server_error");
  EXPECT_EQ(e.server_code(), "model_not_found");
  EXPECT_EQ(e.http_status(), 404);
  EXPECT_STREQ(e.what(), "the model does not exist");
}

TEST(ServerError, BodyWithoutTheShapeNamesTheStatus) {
  EXPECT_STREQ(server_error_from_response(502, "<html>bad gateway</html>").what(),
               "the server answered HTTP 502");
  EXPECT_STREQ(server_error_from_response(500, "").what(), "the server answered HTTP 500");
  EXPECT_STREQ(server_error_from_response(500, R"({"detail":"x"})").what(), "the server answered HTTP 500");
}

TEST(ServerError, StringErrorAndMissingMessage) {
  EXPECT_STREQ(server_error_from_response(400, R"({"error":"bad thing"})").what(), "bad thing");
  ServerError e = server_error_from_response(429, R"({"error":{"code":"rate_limited"}})");
  EXPECT_STREQ(e.what(), "rate_limited");
  EXPECT_STREQ(server_error_from_response(400, R"({"error":{"message":42}})").what(),
               "the server reported an error");
  EXPECT_FALSE(server_error_from_json(nlohmann::json{{"error", nullptr}}, 200).has_value());
  EXPECT_FALSE(server_error_from_json(nlohmann::json::array(), 200).has_value());
}

TEST(ServerError, MessageIsOneBoundedLine) {
  ServerError e = server_error_from_response(400, R"({"error":{"message":"line one\nline two\r\u0007end"}})");
  EXPECT_STREQ(e.what(), "line one line two  end");
  std::string longmsg(2000, 'x');
  ServerError l = server_error_from_response(400, nlohmann::json{{"error", {{"message", longmsg}}}}.dump());
  EXPECT_LE(std::string(l.what()).size(), 515u);
}

TEST(OneLine, CutsOnACharacterBoundary) {
  std::string s = "ab\xC3\xA9\xC3\xA9";  // a b é é
  EXPECT_EQ(one_line(s, 3), "ab...");
  EXPECT_EQ(one_line(s, 4), "ab\xC3\xA9...");
  EXPECT_EQ(one_line("tail   ", 100), "tail");
}

}  // namespace
}  // namespace a3s::power::client
