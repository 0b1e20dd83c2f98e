// libFuzzer target for the tokenizer (tokenizer/tokenizer.h) on the shared test vocabularies
// (../shared/testdata/tokenizer/ggml-vocab-*.gguf: SentencePiece and byte-level BPE with several
// pre-tokenizers; A3S_FUZZ_VOCAB_DIR overrides the directory). Byte 0 picks the vocabulary, byte 1
// the flags, the rest is the text. Properties:
//   - encode never throws on any bytes, and every id is in [0, n_vocab);
//   - decode (with and without special pieces) of those ids never throws;
//   - for valid UTF-8 with add_special and parse_special off, decode(encode(x)) == x (SentencePiece:
//     after the one space prefix it adds, and with a literal U+2581 read as a space), on the vocabularies that have a token for every ASCII
//     byte (the Falcon one has not: it drops those bytes, as llama.cpp does);
//   - caller text goes through quote() and encode_rendered() as plain text: the tokens equal
//     encode(x, add_special, false) and the string is x again afterwards.
// Seeds: tests/fuzz/seeds/tokenizer/ (made from the vocabularies' .inp cases).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/gguf/gguf_file.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace {

using a3s::power::Token;
using a3s::power::Tokenizer;

struct Vocabulary {
  std::unique_ptr<Tokenizer> tok;
  // Every ASCII byte alone decodes back to itself. A vocabulary without a token for some byte (the
  // Falcon one lacks several control characters) drops that byte when encoding, as llama.cpp does,
  // so the round trip holds only for the complete ones.
  bool complete = true;
};

std::vector<Vocabulary>& vocabularies() {
  static std::vector<Vocabulary> v;
  return v;
}

bool ascii_complete(const Tokenizer& tok) {
  for (int b = 0; b < 0x80; ++b) {
    const std::string one(1, static_cast<char>(b));
    std::string back = tok.decode(tok.encode(one, false, false));
    if (tok.kind() == Tokenizer::Kind::SentencePiece && !back.empty() && back[0] == ' ') back.erase(0, 1);
    if (back != one) return false;
  }
  return true;
}

void fail_setup(const std::string& why) {
  std::fprintf(stderr, "fuzz_tokenizer: %s\n", why.c_str());
  std::exit(2);
}

bool valid_utf8(std::string_view s) {
  const auto scan = a3s::power::tok::scan_utf8(s);
  return scan.valid == s.size();
}

// A broken property: names it on stderr (the reproducer says which), then aborts.
[[noreturn]] void broken(const char* property) {
  std::fprintf(stderr, "fuzz_tokenizer: property broken: %s\n", property);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* env = std::getenv("A3S_FUZZ_VOCAB_DIR");
  const std::filesystem::path dir = env ? env : "../shared/testdata/tokenizer";
  for (const char* name : {"llama-spm", "gpt-2", "starcoder", "deepseek-llm", "falcon"}) {
    const auto path = dir / (std::string("ggml-vocab-") + name + ".gguf");
    if (!std::filesystem::exists(path)) fail_setup("no vocabulary " + path.string() + " (set A3S_FUZZ_VOCAB_DIR)");
    auto file = a3s::power::gguf::File::open(path.string());
    Vocabulary v{Tokenizer::from_gguf(*file)};
    v.complete = ascii_complete(*v.tok);
    std::fprintf(stderr, "fuzz_tokenizer: %s%s\n", name, v.complete ? "" : " (some bytes have no token: no round trip)");
    vocabularies().push_back(std::move(v));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const Vocabulary& vocabulary = vocabularies()[data[0] % vocabularies().size()];
  const Tokenizer& tok = *vocabulary.tok;
  const bool add_special = (data[1] & 1) != 0;
  const bool parse_special = (data[1] & 2) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 2, size - 2);

  const std::vector<Token> ids = tok.encode(text, add_special, parse_special);
  for (Token t : ids) {
    if (t < 0 || t >= tok.n_vocab()) broken("id in [0, n_vocab)");
  }
  (void)tok.decode(ids, true);
  (void)tok.decode(ids, false);

  if (!valid_utf8(text)) return 0;
  const std::vector<Token> plain = tok.encode(text, false, false);
  std::string back = tok.decode(plain);
  if (tok.kind() == Tokenizer::Kind::SentencePiece && !back.empty()) {
    if (back[0] != ' ') broken("SentencePiece space prefix");
    back.erase(0, 1);
  }
  std::string expected(text);
  if (tok.kind() == Tokenizer::Kind::SentencePiece) {
    // SentencePiece writes a space as U+2581 and reads U+2581 back as a space, so a literal U+2581
    // in the text comes back as a space (llama.cpp does the same).
    for (std::size_t at = expected.find("\xE2\x96\x81"); at != std::string::npos; at = expected.find("\xE2\x96\x81", at)) {
      expected.replace(at, 3, " ");
    }
  }
  if (vocabulary.complete && back != expected) broken("decode(encode(x)) == x");

  std::string rendered = tok.quote(text);
  const std::vector<Token> quoted = tok.encode_rendered(rendered, add_special);
  if (rendered != text) broken("encode_rendered leaves the unmarked text");
  if (quoted != tok.encode(text, add_special, false)) broken("quoted caller text encodes as plain text");
  return 0;
}
