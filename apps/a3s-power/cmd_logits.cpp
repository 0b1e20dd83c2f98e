// `a3s-power logits`: evaluate an exact token sequence (no BOS added) in one eval and write every
// row of logits as little-endian float32 ([n_tokens, n_vocab] row-major) to a file.
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "a3s-power/decrypt_flags.h"
#include "a3s-power/model_flags.h"
#include "engine/load.h"

namespace a3s::power::cli {
namespace {

struct LogitsOptions {
  std::string model;
  std::string tokens;
  std::string out;
  ModelFlags model_flags;
  DecryptFlags decrypt;
};

// "1,403,407" → {1, 403, 407}. Whitespace around ids is allowed; anything else is an error.
std::vector<Token> parse_tokens(const std::string& list) {
  std::vector<Token> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    size_t a = pos, b = end;
    while (a < b && (list[a] == ' ' || list[a] == '\t')) ++a;
    while (b > a && (list[b - 1] == ' ' || list[b - 1] == '\t')) --b;
    Token t = 0;
    auto [p, ec] = std::from_chars(list.data() + a, list.data() + b, t);
    if (a == b || ec != std::errc() || p != list.data() + b)
      throw Error(codes::kInvalidArgument, "--tokens must be a comma-separated list of token ids");
    out.push_back(t);
    pos = end + 1;
  }
  return out;
}

void run_logits(const LogitsOptions& o) {
  const std::vector<Token> tokens = parse_tokens(o.tokens);
  LoadOptions lo;
  lo.model = model_options(o.model_flags);
  lo.decrypt = decrypt_options(o.decrypt);
  std::shared_ptr<Model> model = load_model(o.model, lo);
  Context ctx(model, ContextOptions{.n_ctx = static_cast<int>(tokens.size())});
  std::span<const float> logits = ctx.eval(tokens, /*all_logits=*/true);

  std::ofstream f(o.out, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(codes::kIo, "cannot open the output file for writing");
  if constexpr (std::endian::native == std::endian::little) {
    f.write(reinterpret_cast<const char*>(logits.data()), static_cast<std::streamsize>(logits.size_bytes()));
  } else {
    for (float v : logits) {
      uint32_t u = std::bit_cast<uint32_t>(v);
      char b[4] = {static_cast<char>(u), static_cast<char>(u >> 8), static_cast<char>(u >> 16),
                   static_cast<char>(u >> 24)};
      f.write(b, 4);
    }
  }
  f.close();
  if (!f) throw Error(codes::kIo, "cannot write the output file");
}

}  // namespace

void add_logits_command(CLI::App& root) {
  auto opts = std::make_shared<LogitsOptions>();
  CLI::App* sub = root.add_subcommand("logits", "Write the logits of an exact token sequence (float32 rows)");
  sub->add_option("--model,-m", opts->model, "Path to a GGUF model file")->required();
  sub->add_option("--tokens", opts->tokens, "Comma-separated token ids (no BOS is added)")->required();
  sub->add_option("--out,-o", opts->out, "Output file (little-endian float32, n_tokens x n_vocab)")->required();
  add_model_flags(sub, opts->model_flags);
  add_decrypt_flags(sub, opts->decrypt);
  sub->callback([opts] { run_logits(*opts); });
}

}  // namespace a3s::power::cli
