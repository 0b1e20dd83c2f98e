// Runs the built `a3s-power tokenize` binary (A3S_BIN_DIR): JSON output on a vocabulary-only GGUF,
// exit status 2 with a single stderr line on bad input.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/process.h"

namespace {

namespace fs = std::filesystem;

using Result = a3s::power::testing::ProcessResult;

std::string quote(const std::string& s) { return a3s::power::testing::shell_quote(s); }

class TokenizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin = fs::path(A3S_BIN_DIR) / "a3s-power";
    ASSERT_TRUE(fs::exists(bin)) << "CLI binary not built: " << bin;
    tmp = fs::temp_directory_path() / ("a3s_tokenize_cli_" + std::to_string(::getpid()));
    fs::create_directories(tmp);
  }
  void TearDown() override { fs::remove_all(tmp); }

  Result run(const std::string& args) {
    return a3s::power::testing::run_process("/bin/sh", {"-c", quote(bin.string()) + " tokenize " + args});
  }

  static std::string vocab(const std::string& name) {
    return (fs::path(A3S_TESTDATA_DIR) / "tokenizer" / ("ggml-vocab-" + name + ".gguf")).string();
  }

  fs::path bin, tmp;
};

TEST_F(TokenizeCli, PrintsTokensForVocabularyOnlyFile) {
  const Result r = run("--model " + quote(vocab("gpt-2")) + " --text 'Hello world'");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"tokens\":[15496,995]}\n");
}

TEST_F(TokenizeCli, BosAndNoBos) {
  const std::string model = quote(vocab("llama-spm"));
  const Result with = run("--model " + model + " --text 'Hello world'");
  ASSERT_EQ(with.status, 0) << with.err;
  EXPECT_EQ(nlohmann::json::parse(with.out).at("tokens"), nlohmann::json::array({1, 15043, 3186}));
  const Result without = run("--model " + model + " --text 'Hello world' --no-bos");
  ASSERT_EQ(without.status, 0) << without.err;
  EXPECT_EQ(nlohmann::json::parse(without.out).at("tokens"), nlohmann::json::array({15043, 3186}));
}

TEST_F(TokenizeCli, TextFileAndParseSpecial) {
  const fs::path text = tmp / "text.txt";
  std::ofstream(text, std::ios::binary) << "Hello<|endoftext|>";
  const Result parsed = run("--model " + quote(vocab("gpt-2")) + " --text-file " + quote(text.string()) +
                            " --parse-special");
  ASSERT_EQ(parsed.status, 0) << parsed.err;
  EXPECT_EQ(nlohmann::json::parse(parsed.out).at("tokens"), nlohmann::json::array({15496, 50256}));
  const Result plain = run("--model " + quote(vocab("gpt-2")) + " --text-file " + quote(text.string()));
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_GT(nlohmann::json::parse(plain.out).at("tokens").size(), 2u);
}

TEST_F(TokenizeCli, MissingModelFileExitsTwoWithOneLine) {
  const Result r = run("--model " + quote((tmp / "missing.gguf").string()) + " --text 'secret prompt'");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty());
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;  // exactly one line
  EXPECT_EQ(r.err.find("secret prompt"), std::string::npos);  // the text is never echoed
}

TEST_F(TokenizeCli, NotAGgufFileExitsTwo) {
  const fs::path bogus = tmp / "bogus.gguf";
  std::ofstream(bogus, std::ios::binary) << "definitely not a gguf file";
  const Result r = run("--model " + quote(bogus.string()) + " --text hi");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST_F(TokenizeCli, MissingTextExitsTwo) {
  const Result r = run("--model " + quote(vocab("gpt-2")));
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST_F(TokenizeCli, MissingTextFileExitsTwo) {
  const Result r = run("--model " + quote(vocab("gpt-2")) + " --text-file " + quote((tmp / "nope.txt").string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

}  // namespace
