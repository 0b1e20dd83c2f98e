// `a3s-power tokenize`: prints the token ids of a text as {"tokens":[...]}.
//
//   a3s-power tokenize --model PATH (--text TEXT | --text-file FILE) [--no-bos] [--parse-special]
//
// Loads only the GGUF metadata and the tokenizer (vocabulary-only GGUF files work); never the
// weights. --no-bos encodes without the model's BOS/EOS (add_special = false); --parse-special turns
// special-token text such as "<|im_start|>" into those tokens. The text is never echoed.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "model/gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::cli {
namespace {

struct TokenizeOptions {
  std::string model;
  std::string text;
  std::string text_file;
  bool no_bos = false;
  bool parse_special = false;
};

std::string read_text_file(const std::string& path) {
  std::error_code ec;
  // Directories, FIFOs and devices are refused before opening (a FIFO would block the open).
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(codes::kIo, "text file " + path + " is missing or not a regular file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(codes::kIo, "cannot open text file " + path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(codes::kIo, "cannot read text file " + path);
  return s;
}

void run(const TokenizeOptions& o, bool has_text) {
  const std::string text = has_text ? o.text : read_text_file(o.text_file);
  const auto file = gguf::File::open(o.model);
  const auto tokenizer = Tokenizer::from_gguf(*file);
  const std::vector<Token> ids = tokenizer->encode(text, /*add_special=*/!o.no_bos, o.parse_special);
  std::cout << nlohmann::json{{"tokens", ids}}.dump() << '\n';
}

}  // namespace

void add_tokenize_command(CLI::App& root) {
  auto opts = std::make_shared<TokenizeOptions>();
  CLI::App* sub = root.add_subcommand("tokenize", "Print the token ids of a text as JSON");
  sub->add_option("--model", opts->model, "GGUF model or vocabulary file")->required();
  auto* text = sub->add_option("--text", opts->text, "Text to tokenize");
  auto* file = sub->add_option("--text-file", opts->text_file, "File holding the text to tokenize");
  text->excludes(file);
  sub->add_flag("--no-bos", opts->no_bos, "Do not add the model's BOS/EOS tokens");
  sub->add_flag("--parse-special", opts->parse_special, "Recognise special-token text in the input");
  sub->callback([opts, text, file] {
    if (text->count() == 0 && file->count() == 0) {
      throw Error(codes::kInvalidArgument, "tokenize needs --text or --text-file");
    }
    run(*opts, text->count() > 0);
  });
}

}  // namespace a3s::power::cli
