#include "store/pull_ref.h"

#include <gtest/gtest.h>

#include "a3s/power/error.h"

namespace a3s::power::store {
namespace {

const std::string kHex(64, 'b');

std::string code_of(const std::string& ref) {
  try {
    parse_pull_ref(ref);
  } catch (const Error& e) {
    return e.code();
  }
  return "ok";
}

TEST(PullRef, HuggingFaceReferenceMapsToResolveMain) {
  const PullRef r = parse_pull_ref("hf://ggml-org/models/tinyllamas/stories260K.gguf");
  EXPECT_EQ(r.kind, PullRef::Kind::kUrl);
  EXPECT_EQ(r.url, "https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf");
  EXPECT_EQ(r.host, "huggingface.co");
  EXPECT_TRUE(r.huggingface);
  EXPECT_FALSE(r.loopback_http);
  EXPECT_EQ(r.default_name, "stories260K");
  EXPECT_EQ(r.source, "hf://ggml-org/models/tinyllamas/stories260K.gguf");
  EXPECT_FALSE(r.pin.has_value());
}

TEST(PullRef, HuggingFaceEndpointOverrideAndEncoding) {
  const PullRef r = parse_pull_ref("hf://org/repo/dir+name/m.gguf", "https://mirror.example/");
  EXPECT_EQ(r.url, "https://mirror.example/org/repo/resolve/main/dir%2Bname/m.gguf");
  EXPECT_EQ(r.host, "mirror.example");
  EXPECT_EQ(code_of("hf://org/repo/dir name/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("hf://org/repo"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("hf://org//m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("hf://org/repo/../m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("hf://org/repo/m.gguf?x=1"), code_string(codes::kInvalidArgument));
  EXPECT_THROW(parse_pull_ref("hf://o/r/m.gguf", "http://mirror.example"), Error);  // http, not loopback
}

TEST(PullRef, PinSuffixIsParsedAndLowercased) {
  const std::string upper(64, 'B');
  const PullRef r = parse_pull_ref("https://host.example/m.gguf@sha256:" + upper);
  ASSERT_TRUE(r.pin.has_value());
  EXPECT_EQ(*r.pin, kHex);
  EXPECT_EQ(r.url, "https://host.example/m.gguf");
  EXPECT_EQ(code_of("https://host.example/m.gguf@sha256:abc"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("https://host.example/m.gguf@sha256:" + std::string(64, 'z')), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("@sha256:" + kHex), code_string(codes::kInvalidArgument));
  EXPECT_EQ(parse_pull_ref("/models/a.gguf@sha256:" + kHex).path, "/models/a.gguf");
}

TEST(PullRef, HttpsUrlDefaultNameIgnoresQueryAndDecodes) {
  const PullRef r = parse_pull_ref("https://cdn.example:8443/x/My%20Model.GGUF?sig=secret#frag");
  EXPECT_EQ(r.default_name, "My Model");
  EXPECT_EQ(r.source, "https://cdn.example:8443/x/My%20Model.GGUF");
  EXPECT_EQ(r.source.find("secret"), std::string::npos);
  EXPECT_EQ(r.host, "cdn.example");
  EXPECT_EQ(parse_pull_ref("https://cdn.example/").default_name, "");
}

TEST(PullRef, PlainHttpOnlyToLoopback) {
  EXPECT_TRUE(parse_pull_ref("http://127.0.0.1:8080/m.gguf").loopback_http);
  EXPECT_TRUE(parse_pull_ref("http://localhost/m.gguf").loopback_http);
  EXPECT_TRUE(parse_pull_ref("http://[::1]:9/m.gguf").loopback_http);
  EXPECT_TRUE(parse_pull_ref("HTTP://127.1.2.3/m.gguf").loopback_http);
  EXPECT_EQ(code_of("http://example.com/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("http://127.0.0.1.evil.example/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("http://10.0.0.1/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("http://0x7f000001/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("http://127.0.0.1@example.com/m.gguf"), code_string(codes::kInvalidArgument));
}

TEST(PullRef, LoopbackHostRecognition) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.255.255.255"));
  EXPECT_TRUE(is_loopback_host("LOCALHOST"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("128.0.0.1"));
  EXPECT_FALSE(is_loopback_host("127.0.0"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.2"));
  EXPECT_FALSE(is_loopback_host("127.0.0.256"));
  EXPECT_FALSE(is_loopback_host("localhost.example"));
  EXPECT_FALSE(is_loopback_host(""));
}

TEST(PullRef, MalformedUrlsAreRejected) {
  EXPECT_EQ(code_of(""), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("https://"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("https://user:pw@host.example/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("https://host.example:99999999/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("https://host.example:8a/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("https://host.example/a b.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("ftp://host.example/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of("s3://bucket/m.gguf"), code_string(codes::kInvalidArgument));
  EXPECT_EQ(code_of(std::string(9000, 'a')), code_string(codes::kInvalidArgument));
}

TEST(PullRef, LocalPathDefaultNameIsTheFileStem) {
  PullRef r = parse_pull_ref("/data/models/llama-q4.gguf");
  EXPECT_EQ(r.kind, PullRef::Kind::kLocalPath);
  EXPECT_EQ(r.default_name, "llama-q4");
  EXPECT_EQ(parse_pull_ref("relative.gguf").default_name, "relative");
  EXPECT_EQ(parse_pull_ref("weights.bin").default_name, "weights.bin");
  EXPECT_EQ(parse_pull_ref("dir/").default_name, "");
  EXPECT_EQ(parse_pull_ref("./dir/x:y.gguf").default_name, "x:y");  // a colon in a path is no scheme
}

}  // namespace
}  // namespace a3s::power::store
