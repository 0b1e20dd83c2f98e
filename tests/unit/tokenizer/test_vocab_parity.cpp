// Parity with llama.cpp's tokenizer test vectors (models/ggml-vocab-*.gguf.inp/.out): every text
// of every vocabulary must give exactly the reference ids (add_special = false, no special-token
// parsing). The .inp file separates texts with "\n__ggml_vocab_test__\n".
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "tokenizer_test_util.h"

namespace a3s::power {
namespace {

std::vector<std::string> split_cases(const std::string& inp) {
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = inp.find(sep, start);
    if (at == std::string::npos) break;
    out.push_back(inp.substr(start, at - start));
    start = at + sep.size();
  }
  if (start < inp.size()) out.push_back(inp.substr(start));  // text after the last separator, if any
  return out;
}

std::vector<std::vector<Token>> parse_expected(const std::string& out) {
  std::vector<std::vector<Token>> rows;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream ids(line);
    std::vector<Token> row;
    Token t;
    while (ids >> t) row.push_back(t);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string ids_to_string(const std::vector<Token>& ids) {
  std::string s;
  for (Token t : ids) {
    s.push_back(' ');
    s.append(std::to_string(t));
  }
  return s;
}

class VocabParity : public ::testing::TestWithParam<std::string> {};

TEST_P(VocabParity, EveryCaseMatchesReference) {
  const auto base = test::testdata() / "tokenizer" / ("ggml-vocab-" + GetParam() + ".gguf");
  auto tok = test::load_tokenizer(base);
  const auto cases = split_cases(test::read_file(base.string() + ".inp"));
  const auto expected = parse_expected(test::read_file(base.string() + ".out"));
  ASSERT_FALSE(cases.empty());
  ASSERT_EQ(cases.size(), expected.size()) << "case count mismatch between .inp and .out";
  size_t failures = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<Token> got = tok->encode(cases[i], /*add_special=*/false, /*parse_special=*/false);
    if (got != expected[i]) {
      ++failures;
      ADD_FAILURE() << GetParam() << " case " << i << "\n  expected:" << ids_to_string(expected[i])
                    << "\n  got:     " << ids_to_string(got);
    }
  }
  EXPECT_EQ(failures, 0u);
}

// Decoding the tokens gives the text back: exactly for byte-level BPE, and for SentencePiece after
// removing the space prefix it adds.
TEST_P(VocabParity, DecodeRoundTrips) {
  const auto base = test::testdata() / "tokenizer" / ("ggml-vocab-" + GetParam() + ".gguf");
  auto tok = test::load_tokenizer(base);
  const auto cases = split_cases(test::read_file(base.string() + ".inp"));
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto ids = tok->encode(cases[i], false, false);
    std::string text = tok->decode(ids);
    if (tok->kind() == Tokenizer::Kind::SentencePiece && !text.empty()) {
      ASSERT_EQ(text[0], ' ') << "case " << i;
      text.erase(0, 1);
    }
    EXPECT_EQ(text, cases[i]) << GetParam() << " case " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, VocabParity,
                         ::testing::Values("llama-spm", "gpt-2", "starcoder", "deepseek-llm", "falcon"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace a3s::power
