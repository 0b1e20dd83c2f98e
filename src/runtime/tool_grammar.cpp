#include "runtime/tool_grammar.h"

#include "a3s/power/error.h"
#include "chat/field_error.h"
#include "grammar/compose.h"
#include "grammar/json_schema.h"

namespace a3s::power::runtime {
namespace {

using ojson = nlohmann::ordered_json;
using chat::ToolCallSyntax;

constexpr int kMaxParallelCalls = 8;

struct CallShape {
  std::string before_name;  // literal text before the function's name
  std::string after_name;   // literal text between the name and the arguments
  std::string after_args;   // literal text after the arguments
  std::string open, separator, close;  // around and between the calls
};

CallShape shape_of(ToolCallSyntax syntax) {
  switch (syntax) {
    case ToolCallSyntax::kHermes:
      return {"<tool_call>\n{\"name\": \"", "\", \"arguments\": ", "}\n</tool_call>", "", "\n", ""};
    case ToolCallSyntax::kLlama3:
      return {"{\"name\": \"", "\", \"parameters\": ", "}", "", "; ", ""};
    case ToolCallSyntax::kMistral:
      return {"{\"name\": \"", "\", \"arguments\": ", "}", "[TOOL_CALLS][", ", ", "]"};
    case ToolCallSyntax::kFunctionary:
      return {"", "\n", "", "", ">>>", ""};
    case ToolCallSyntax::kCommandR:
      return {"{\"tool_call_id\": \"0\", \"tool_name\": \"", "\", \"parameters\": ", "}", "<|START_ACTION|>[", ", ",
              "]<|END_ACTION|>"};
    case ToolCallSyntax::kDeepseekR1:
      return {"<｜tool▁call▁begin｜>function<｜tool▁sep｜>", "\n```json\n", "\n```<｜tool▁call▁end｜>",
              "<｜tool▁calls▁begin｜>", "", "<｜tool▁calls▁end｜>"};
    case ToolCallSyntax::kGptOss:
      return {"<|channel|>commentary to=functions.", " <|constrain|>json<|message|>", "", "", "", ""};
    case ToolCallSyntax::kNone:
    case ToolCallSyntax::kDeepseekDsml:
      break;
  }
  throw chat::FieldError(codes::kUnsupportedField, "tool_choice",
                         "'tool_choice' \"required\" or a named function is not available for this model's tool-call "
                         "syntax; use \"auto\"");
}

}  // namespace

std::shared_ptr<const grammar::Grammar> tool_call_grammar(ToolCallSyntax syntax, const ojson& tools,
                                                          const std::string& only_name, bool parallel) {
  const CallShape shape = shape_of(syntax);
  std::string text;
  std::string alternatives;
  for (size_t i = 0; i < tools.size(); ++i) {
    const ojson& fn = tools[i]["function"];
    const std::string& name = fn["name"].get_ref<const std::string&>();
    if (!only_name.empty() && name != only_name) continue;
    static const ojson kAnyObject = {{"type", "object"}};
    auto p = fn.find("parameters");
    const ojson& params = p == fn.end() || p->is_null() || (p->is_object() && p->empty()) ? kAnyObject : *p;
    std::string args;
    try {
      args = grammar::json_schema_to_grammar(params);
    } catch (const Error& e) {
      if (e.kind() != codes::kUnsupportedField && e.kind() != codes::kInvalidRequest) throw;
      throw chat::FieldError(e.kind(), "tools",
                             "'tools[" + std::to_string(i) + "].function.parameters': " + e.what());
    }
    const std::string prefix = "t" + std::to_string(i) + "-";
    text += grammar::prefix_rule_names(args, prefix);
    text += "\n";
    if (!alternatives.empty()) alternatives += " | ";
    alternatives += "(" + grammar::grammar_literal(shape.before_name + name + shape.after_name) + " " + prefix +
                    "root" + (shape.after_args.empty() ? "" : " " + grammar::grammar_literal(shape.after_args)) + ")";
  }
  if (alternatives.empty()) {
    throw chat::FieldError(codes::kInvalidRequest, "tool_choice", "'tool_choice' names a function that is not in 'tools'");
  }
  // Llama 3.x templates refuse more than one call per turn in the history, and a harmony message
  // carries one call: those syntaxes get one call.
  const bool many = parallel && syntax != ToolCallSyntax::kGptOss && syntax != ToolCallSyntax::kLlama3;
  std::string root = "root ::= ";
  if (!shape.open.empty()) root += grammar::grammar_literal(shape.open) + " ";
  root += "call";
  if (many) {
    root += " (";
    if (!shape.separator.empty()) root += grammar::grammar_literal(shape.separator) + " ";
    root += "call){0," + std::to_string(kMaxParallelCalls - 1) + "}";
  }
  if (!shape.close.empty()) root += " " + grammar::grammar_literal(shape.close);
  text += root + "\ncall ::= " + alternatives + "\n";
  return grammar::parse_grammar(text);
}

}  // namespace a3s::power::runtime
