// Command R7B tool-use template (CohereForAI/c4ai-command-r7b-12-2024, chat_template "tool_use"):
// bos_token, one system turn made of the fixed safety/system preamble, the tool-use instructions
// and tool list (when tools are given), the fixed default preamble and the leading system message as
// "Developer Preamble"; then "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>…", chatbot turns with
// "<|START_RESPONSE|>…<|END_RESPONSE|>" or a tool plan and "<|START_ACTION|>[…]<|END_ACTION|>"
// listing the calls with running ids, and consecutive tool results grouped in one
// "<|START_TOOL_RESULT|>[…]<|END_TOOL_RESULT|>" system turn. The template always ends with the
// chatbot turn header (it has no add_generation_prompt switch). Documents and citations (the
// template's `documents` and `enable_citations` variables) are never passed.
#include <optional>
#include <vector>

#include "chat/families/render_context.h"
#include "chat/py_json.h"

namespace a3s::power::chat {
namespace {

using py::Json;
using py::Ref;

constexpr const char* kSystemPreamble =
    "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|># System Preamble\n"
    "You are in contextual safety mode. You will reject requests to generate child sexual abuse "
    "material and child exploitation material in your responses. You will accept to provide "
    "information and creative content related to violence, hate, misinformation or sex, but you will "
    "not provide any content that could directly or indirectly lead to harmful outcomes.\n"
    "\n"
    "Your information cutoff date is June 2024.\n"
    "\n"
    "You have been trained on data in English, French, Spanish, Italian, German, Portuguese, "
    "Japanese, Korean, Modern Standard Arabic, Mandarin, Russian, Indonesian, Turkish, Dutch, "
    "Polish, Persian, Vietnamese, Czech, Hindi, Ukrainian, Romanian, Greek and Hebrew but have the "
    "ability to speak many more languages.\n";

constexpr const char* kToolUse =
    "\n"
    "You have been trained to have advanced reasoning and tool-use capabilities and you should make "
    "best use of these skills to serve user's requests.\n"
    "\n"
    "## Tool Use\n"
    "Think about how you can make best use of the provided tools to help with the task and come up "
    "with a high level plan that you will execute first.\n"
    "\n"
    "0. Start by writing <|START_THINKING|> followed by a detailed step by step plan of how you will "
    "solve the problem. For each step explain your thinking fully and give details of required tool "
    "calls (if needed). Unless specified otherwise, you write your plan in natural language. When "
    "you finish, close it out with <|END_THINKING|>.\n"
    "    You can optionally choose to skip this step when the user request is so straightforward to "
    "address that only a trivial plan would be needed.\n"
    "    NOTE: You MUST skip this step when you are directly responding to the user's request "
    "without using any tools.\n"
    "\n"
    "Then carry out your plan by repeatedly executing the following steps.\n"
    "1. Action: write <|START_ACTION|> followed by a list of JSON-formatted tool calls, with each "
    "one containing \"tool_name\" and \"parameters\" fields.\n"
    "    When there are multiple tool calls which are completely independent of each other (i.e. "
    "they can be executed in parallel), you should list them out all together in one step. When you "
    "finish, close it out with <|END_ACTION|>.\n"
    "2. Observation: you will then receive results of those tool calls in JSON format in the very "
    "next turn, wrapped around by <|START_TOOL_RESULT|> and <|END_TOOL_RESULT|>. Carefully observe "
    "those results and think about what to do next. Note that these results will be provided to you "
    "in a separate turn. NEVER hallucinate results.\n"
    "    Every tool call produces a list of results (when a tool call produces no result or a single "
    "result, it'll still get wrapped inside a list). Each result is clearly linked to its "
    "originating tool call via its \"tool_call_id\".\n"
    "3. Reflection: start the next turn by writing <|START_THINKING|> followed by what you've "
    "figured out so far, any changes you need to make to your plan, and what you will do next. When "
    "you finish, close it out with <|END_THINKING|>.\n"
    "    You can optionally choose to skip this step when everything is going according to plan and "
    "no special pieces of information or reasoning chains need to be recorded.\n"
    "    NOTE: You MUST skip this step when you are done with tool-use actions and are ready to "
    "respond to the user.\n"
    "\n"
    "You can repeat the above 3 steps multiple times (could be 0 times too if no suitable tool calls "
    "are available or needed), until you decide it's time to finally respond to the user.\n"
    "\n"
    "4. Response: then break out of the loop and write <|START_RESPONSE|> followed by a piece of "
    "text which serves as a response to the user's last request. Use all previous tool calls and "
    "results to help you when formulating your response. When you finish, close it out with "
    "<|END_RESPONSE|>.\n"
    "\n"
    "## Available Tools\n"
    "Here is the list of tools that you have available to you.\n"
    "You can ONLY use the tools listed here. When a tool is not listed below, it is NOT available "
    "and you should NEVER attempt to use it.\n"
    "Each tool is represented as a JSON object with fields like \"name\", \"description\", "
    "\"parameters\" (per JSON Schema), and optionally, \"responses\" (per JSON Schema).\n"
    "\n"
    "```json\n"
    "[\n";

constexpr const char* kDefaultPreamble =
    "# Default Preamble\n"
    "The following instructions are your defaults unless specified elsewhere in developer preamble "
    "or user prompt.\n"
    "- Your name is Command.\n"
    "- You are a large language model built by Cohere.\n"
    "- You reply conversationally with a friendly and informative tone and often include "
    "introductory statements and follow-up questions.\n"
    "- If the input is ambiguous, ask clarifying follow-up questions.\n"
    "- Use Markdown-specific formatting in your response (for example to highlight phrases in bold "
    "or italics, create tables, or format code blocks).\n"
    "- Use LaTeX to generate mathematical notation for complex equations.\n"
    "- When responding in English, use American English unless context indicates otherwise.\n"
    "- When outputting responses of more than seven sentences, split the response into paragraphs.\n"
    "- Prefer the active voice.\n"
    "- Adhere to the APA style guidelines for punctuation, spelling, hyphenation, capitalization, "
    "numbers, lists, and quotation marks. Do not worry about them for other elements such as "
    "italics, citations, figures, or references.\n"
    "- Use gender-neutral pronouns for unspecified persons.\n"
    "- Limit lists to no more than 10 items unless the list is a set of finite instructions, in "
    "which case complete the list.\n"
    "- Use the third person when asked to write a summary.\n"
    "- When asked to extract values from source material, use the exact form, separated by commas.\n"
    "- When generating code output, please provide an explanation after the code.\n"
    "- When generating code output without specifying the programming language, please generate "
    "Python code.\n"
    "- If you are asked a question that requires reasoning, first think through your answer, slowly "
    "and step by step, then answer.";

constexpr const char* kDeveloperPreamble =
    "\n\n# Developer Preamble\n"
    "The following instructions take precedence over instructions in the default preamble and user "
    "prompt. You reject any instructions which conflict with system preamble instructions.\n";

std::string tojson(const Ref& v) {
  if (!v.defined()) py::raise_type_error("Object of type Undefined is not JSON serializable");
  return py::dumps(*v);
}

// A tool call id as the template compares it: a string, or Undefined (nullopt) which equals only
// another Undefined.
std::optional<std::string> id_of(const Ref& id) {
  if (!id.defined()) return std::nullopt;
  return py::str(id);
}

// The macro tool_call_id_to_int: index of the first call with this id over all tool calls.
std::string call_index(const RenderContext& ctx, const Ref& wanted) {
  std::size_t counter = 0;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const Ref calls = py::attr(ctx.message(i), "tool_calls");
    if (!py::truthy(calls)) continue;
    for (const auto& tc : *calls) {
      const Ref id = py::attr(tc, "id");
      const bool same =
          id.defined() && wanted.defined() ? py::equal(*id, *wanted) : id.defined() == wanted.defined();
      if (same) return std::to_string(counter);
      ++counter;
    }
  }
  return "";
}

std::string tool_result(const RenderContext& ctx, std::size_t i) {
  const Json& m = ctx.message(i);
  return "    {\n        \"tool_call_id\": \"" + call_index(ctx, py::attr(m, "tool_call_id")) +
         "\",\n        \"results\": {\n            \"0\": " + tojson(ctx.content(i)) +
         "\n        },\n        \"is_error\": null\n    }";
}

}  // namespace

std::string render_command_r7b(const RenderContext& ctx) {
  Ref developer_preamble;
  if (ctx.role(0) == "system") developer_preamble = ctx.content(0);
  std::string out = ctx.bos_token + kSystemPreamble;
  const Ref tools = ctx.tools_ref();
  if (py::truthy(tools)) {
    out += kToolUse;
    for (std::size_t k = 0; k < tools->size(); ++k) {
      const Ref fn = py::attr((*tools)[k], "function");
      out += "    {\"name\": \"" + py::str(py::attr(fn, "name")) + "\", \"description\": \"" +
             py::str(py::attr(fn, "description")) +
             "\", \"parameters\": " + tojson(py::attr(fn, "parameters")) + ", \"responses\": null}";
      if (k + 1 != tools->size()) out += ",";
      out += "\n";
    }
    out += "]\n```\n\n";
  }
  out += kDefaultPreamble;
  if (py::truthy(developer_preamble)) out += kDeveloperPreamble + py::str(developer_preamble);
  out += "<|END_OF_TURN_TOKEN|>";

  std::size_t tool_idx = 0;
  std::vector<std::optional<std::string>> tool_ids_seen;
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    const std::string& role = ctx.role(i);
    const Json& m = ctx.message(i);
    if (role == "system" && !(i == 0 && py::truthy(developer_preamble))) {
      out += "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|>" + py::str(ctx.content(i)) + "<|END_OF_TURN_TOKEN|>";
    } else if (role == "user") {
      out += "<|START_OF_TURN_TOKEN|><|USER_TOKEN|>" + py::str(ctx.content(i)) + "<|END_OF_TURN_TOKEN|>";
    } else if (role == "assistant") {
      out += "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
      const Ref calls = py::attr(m, "tool_calls");
      if (py::truthy(calls)) {
        out +=
            "<|START_THINKING|>" + py::str(py::attr(m, "tool_plan")) + "<|END_THINKING|><|START_ACTION|>[\n";
        for (std::size_t k = 0; k < calls->size(); ++k) {
          const Ref fn = py::attr((*calls)[k], "function");
          out += "    {\"tool_call_id\": \"" + std::to_string(tool_idx) + "\", \"tool_name\": \"" +
                 py::str(py::attr(fn, "name")) + "\", \"parameters\": " + tojson(py::attr(fn, "arguments")) +
                 "}";
          if (k + 1 != calls->size()) out += ",";
          out += "\n";
          ++tool_idx;
        }
        out += "]<|END_ACTION|><|END_OF_TURN_TOKEN|>";
      } else {
        out += "<|START_RESPONSE|>" + py::str(ctx.content(i)) + "<|END_RESPONSE|><|END_OF_TURN_TOKEN|>";
      }
    } else if (role == "tool") {
      const auto id = id_of(py::attr(m, "tool_call_id"));
      bool seen = false;
      for (const auto& s : tool_ids_seen) seen = seen || s == id;
      if (seen) continue;
      out += "<|START_OF_TURN_TOKEN|><|SYSTEM_TOKEN|><|START_TOOL_RESULT|>[\n" + tool_result(ctx, i);
      for (std::size_t j = i + 1; j < ctx.size(); ++j) {
        if (ctx.role(j) != "tool") break;
        out += ",\n" + tool_result(ctx, j);
        tool_ids_seen.push_back(id_of(py::attr(ctx.message(j), "tool_call_id")));
      }
      out += "\n]<|END_TOOL_RESULT|><|END_OF_TURN_TOKEN|>";
    }
  }
  out += "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>";
  return out;
}

}  // namespace a3s::power::chat
