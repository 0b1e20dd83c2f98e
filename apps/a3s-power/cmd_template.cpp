// `a3s-power template render`: renders a chat template with the Jinja interpreter alone and prints
// the prompt text (no tokenization, no family renderer).
//
//   a3s-power template render (--model M.gguf | --template FILE) --messages FILE [--tools FILE]
//       [--no-generation-prompt] [--bos-token T] [--eos-token T] [--date YYYY-MM-DD]
//
// --model reads tokenizer.chat_template and, unless given, the BOS/EOS token texts from the GGUF
// metadata (never the weights). --messages and --tools are JSON arrays (OpenAI shape, passed to the
// template as given, key order kept). A template error exits with status 2 and the template's message.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "chat/jinja/template.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::cli {
namespace {

struct TemplateRenderOptions {
  std::string model;
  std::string template_file;
  std::string messages_file;
  std::string tools_file;
  bool no_generation_prompt = false;
  std::string bos_token;
  std::string eos_token;
  std::string date;
};

constexpr std::uintmax_t kMaxTemplateInput = 64u << 20;

std::string read_template_input(const std::string& path, const char* what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(codes::kIo, std::string(what) + " file " + path + " is missing or not a regular file");
  }
  if (std::filesystem::file_size(path, ec) > kMaxTemplateInput) {
    throw Error(codes::kInvalidArgument, std::string(what) + " file " + path + " is larger than 64 MiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(codes::kIo, std::string("cannot open ") + what + " file " + path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(codes::kIo, std::string("cannot read ") + what + " file " + path);
  return s;
}

nlohmann::ordered_json read_json_array(const std::string& path, const char* what) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(read_template_input(path, what), nullptr, false);
  if (j.is_discarded()) throw Error(codes::kInvalidJson, std::string(what) + " file " + path + " is not valid JSON");
  if (!j.is_array()) throw Error(codes::kInvalidArgument, std::string(what) + " file " + path + " must hold a JSON array");
  return j;
}

std::string token_text(const gguf::File& file, const char* id_key) {
  const auto id = file.get_u64(id_key);
  const auto tokens = file.get_string_array("tokenizer.ggml.tokens");
  if (!id || !tokens || *id >= tokens->size()) return "";
  return (*tokens)[*id];
}

void render_template(const TemplateRenderOptions& o, bool has_bos, bool has_eos) {
  std::string source;
  std::string bos = o.bos_token;
  std::string eos = o.eos_token;
  if (!o.model.empty()) {
    const auto file = gguf::File::open(o.model);
    const auto tmpl = file->get_string("tokenizer.chat_template");
    if (!tmpl) throw Error(codes::kInvalidArgument, "model " + o.model + " has no tokenizer.chat_template");
    source = *tmpl;
    if (!has_bos) bos = token_text(*file, "tokenizer.ggml.bos_token_id");
    if (!has_eos) eos = token_text(*file, "tokenizer.ggml.eos_token_id");
  } else {
    source = read_template_input(o.template_file, "template");
  }
  const auto messages = read_json_array(o.messages_file, "messages");
  nlohmann::ordered_json tools;
  if (!o.tools_file.empty()) tools = read_json_array(o.tools_file, "tools");
  const auto tmpl = chat::jinja::Template::parse(source);
  auto ctx = chat::jinja::chat_context(messages, o.tools_file.empty() ? nullptr : &tools, !o.no_generation_prompt,
                                       bos, eos);
  if (!o.date.empty()) {
    ctx.now = chat::jinja::parse_date(o.date);
    if (!ctx.now) throw Error(codes::kInvalidArgument, "--date must be YYYY-MM-DD");
  }
  std::cout << tmpl.render(ctx).text << std::flush;
}

}  // namespace

void add_template_command(CLI::App& root) {
  auto opts = std::make_shared<TemplateRenderOptions>();
  CLI::App* group = root.add_subcommand("template", "Chat template tools");
  group->require_subcommand(1);
  CLI::App* sub = group->add_subcommand("render", "Render a chat template with the Jinja interpreter and print the prompt");
  auto* model = sub->add_option("--model", opts->model, "GGUF model whose tokenizer.chat_template is rendered");
  auto* file = sub->add_option("--template", opts->template_file, "File holding the Jinja template source");
  model->excludes(file);
  sub->add_option("--messages", opts->messages_file, "JSON file: the messages array")->required();
  sub->add_option("--tools", opts->tools_file, "JSON file: the tools array");
  sub->add_flag("--no-generation-prompt", opts->no_generation_prompt, "Render with add_generation_prompt = false");
  auto* bos = sub->add_option("--bos-token", opts->bos_token, "Text of bos_token (default: the model's, or empty)");
  auto* eos = sub->add_option("--eos-token", opts->eos_token, "Text of eos_token (default: the model's, or empty)");
  sub->add_option("--date", opts->date, "Date strftime_now formats, YYYY-MM-DD (default: today, UTC)");
  sub->callback([opts, model, file, bos, eos] {
    if (model->count() == 0 && file->count() == 0) {
      throw Error(codes::kInvalidArgument, "template render needs --model or --template");
    }
    render_template(*opts, bos->count() > 0, eos->count() > 0);
  });
}

}  // namespace a3s::power::cli
