// --url parsing: schemes, loopback-only plain http, refused credentials, endpoints.
#include "http_client/server_url.h"

#include <gtest/gtest.h>

#include "a3s/power/error.h"

namespace a3s::power::client {
namespace {

void expect_invalid(const std::string& url, const std::string& fragment) {
  try {
    ServerUrl::parse(url);
    FAIL() << "accepted " << url;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(ServerUrl, LoopbackHttp) {
  ServerUrl u = ServerUrl::parse("http://127.0.0.1:11434");
  EXPECT_EQ(u.scheme(), "http");
  EXPECT_EQ(u.host(), "127.0.0.1");
  EXPECT_EQ(u.port(), 11434);
  EXPECT_EQ(u.endpoint("/v1/models"), "http://127.0.0.1:11434/v1/models");
  EXPECT_EQ(u.endpoint("health"), "http://127.0.0.1:11434/health");
  EXPECT_EQ(ServerUrl::parse("localhost:8080").display(), "http://localhost:8080");
  EXPECT_EQ(ServerUrl::parse("HTTP://[::1]:9/").endpoint("/health"), "http://[::1]:9/health");
  EXPECT_EQ(ServerUrl::parse("http://127.1.2.3").port(), 80);
}

TEST(ServerUrl, HttpsAnyHostWithPrefix) {
  ServerUrl u = ServerUrl::parse("https://power.example.com/api/");
  EXPECT_EQ(u.port(), 443);
  EXPECT_EQ(u.prefix(), "/api");
  EXPECT_EQ(u.endpoint("/v1/chat/completions"), "https://power.example.com:443/api/v1/chat/completions");
}

TEST(ServerUrl, Refusals) {
  expect_invalid("http://example.com:11434", "loopback");
  expect_invalid("http://10.0.0.1", "loopback");
  expect_invalid("https://user:secret@example.com", "credentials");
  expect_invalid("ftp://127.0.0.1/", "");
  expect_invalid("http://127.0.0.1/?x=1", "query");
  expect_invalid("", "empty");
  expect_invalid("http://127.0.0.1:99999", "");
  expect_invalid("http://127.0.0.1 /", "spaces");
}

TEST(ServerUrl, CredentialsNeverAppearInTheMessage) {
  try {
    ServerUrl::parse("https://alice:hunter2@example.com");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("hunter2"), std::string::npos);
  }
}

TEST(LoopbackHost, Recognised) {
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.255.0.9"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host("localhost.example.com"));
  EXPECT_FALSE(is_loopback_host("::2"));
  EXPECT_FALSE(is_loopback_host(""));
}

}  // namespace
}  // namespace a3s::power::client
