#include "chat/jinja_chat_template.h"

#include "chat/conversation.h"
#include "chat/jinja/template.h"

namespace a3s::power::chat {
namespace {

// The variables the server sets from the request and the model; chat_template_kwargs may not.
bool server_set(const std::string& name) {
  return name == "messages" || name == "tools" || name == "add_generation_prompt" || name == "bos_token" ||
         name == "eos_token";
}

class JinjaChatTemplate final : public ChatTemplate {
 public:
  explicit JinjaChatTemplate(jinja::Template t) : template_(std::move(t)) {
    arguments_ = probe_arguments_style();
    // A template that fails on an assistant turn without content (it calls string methods on it)
    // but renders it with empty content gets "" where the content is missing.
    const nlohmann::ordered_json args = arguments_ == ArgumentsStyle::kString
                                            ? nlohmann::ordered_json("{\"probe_key\": \"probe_value\"}")
                                            : nlohmann::ordered_json{{"probe_key", "probe_value"}};
    null_content_ok_ = renders_with(args, "", nullptr) || !renders_with(args, "", "");
  }

  std::string family() const override { return "jinja"; }
  // Tools reach the template as given; the request layer decides whether a request may carry them.
  bool supports_tools() const override { return true; }

  using ChatTemplate::render;

  std::string render(const Messages& messages, const RenderOptions& opts) const override {
    return render_with_caller_spans(messages, opts)->text;
  }

  std::optional<jinja::Rendered> render_with_caller_spans(const Messages& messages,
                                                          const RenderOptions& opts) const override {
    if (messages.empty()) {
      throw FieldError(codes::kInvalidRequest, "messages", "messages must contain at least one message");
    }
    validate_tools(opts.tools);
    nlohmann::ordered_json view = to_json(messages);
    // Tool-call arguments go to the template as given, as transformers passes them, unless the
    // caller asks for them in the form this template was found to print (probe_arguments_style).
    if (opts.adapt_tool_call_arguments) adapt_tool_call_arguments(view, arguments_);
    if (!null_content_ok_) {
      for (auto& m : view) {
        if (m.contains("content") && m["content"].is_null()) m["content"] = "";
      }
    }
    jinja::Context ctx = jinja::chat_context(view, opts.tools.is_null() ? nullptr : &opts.tools,
                                             opts.add_generation_prompt, opts.bos_token, opts.eos_token);
    if (opts.template_kwargs != nullptr && opts.template_kwargs->is_object()) {
      for (auto it = opts.template_kwargs->begin(); it != opts.template_kwargs->end(); ++it) {
        if (server_set(it.key())) {
          throw FieldError(codes::kInvalidRequest, "chat_template_kwargs",
                           "chat_template_kwargs may not set a variable the server sets (messages, tools, "
                           "add_generation_prompt, bos_token, eos_token)");
        }
        ctx.variables[it.key()] = jinja::from_json(it.value(), /*caller=*/true);
      }
    }
    if (!opts.reasoning_effort.empty()) ctx.variables["reasoning_effort"] = jinja::from_json(opts.reasoning_effort, true);
    if (!opts.today.empty()) {
      ctx.now = jinja::parse_date(opts.today);
      if (!ctx.now) throw Error(codes::kInvalidArgument, "chat template date must be YYYY-MM-DD");
    }
    return template_.render(ctx);
  }

  ArgumentsStyle tool_call_arguments() const override { return arguments_; }

 private:
  // How the template prints an assistant's tool-call arguments, found by rendering a probe call
  // once: an object whose members appear as JSON → kObject (the template serialises them, as with
  // `tojson`); a string that appears as is while an object does not render → kString (the template
  // concatenates); otherwise kAsGiven.
  ArgumentsStyle probe_arguments_style() const {
    // The call goes with no content, then with empty content (templates print calls in one case or
    // the other).
    auto renders = [&](const nlohmann::ordered_json& arguments, std::string_view expect) {
      return renders_with(arguments, expect, nullptr) || renders_with(arguments, expect, "");
    };
    const nlohmann::ordered_json object = {{"probe_key", "probe_value"}};
    if (renders(object, "\"probe_key\": \"probe_value\"") || renders(object, "\"probe_key\":\"probe_value\"")) {
      return ArgumentsStyle::kObject;
    }
    if (renders("{\"probe_key\": \"probe_value\"}", "{\"probe_key\": \"probe_value\"}")) return ArgumentsStyle::kString;
    return ArgumentsStyle::kAsGiven;
  }

  // Renders a probe conversation — a user turn, an assistant turn with `content` calling
  // probe_function with `arguments`, the call's result, and the generation prompt — and says whether
  // it renders and its text contains `expect`.
  bool renders_with(const nlohmann::ordered_json& arguments, std::string_view expect,
                    const nlohmann::ordered_json& content) const {
    nlohmann::ordered_json messages = nlohmann::ordered_json::array();
    messages.push_back({{"role", "user"}, {"content", "probe"}});
    messages.push_back({{"role", "assistant"},
                        {"content", content},
                        {"tool_calls",
                         {{{"id", "probe0001"},
                           {"type", "function"},
                           {"function", {{"name", "probe_function"}, {"arguments", arguments}}}}}}});
    messages.push_back({{"role", "tool"}, {"tool_call_id", "probe0001"}, {"content", "probe result"}});
    const nlohmann::ordered_json tools = nlohmann::ordered_json::parse(
        R"([{"type": "function", "function": {"name": "probe_function", "description": "probe",
            "parameters": {"type": "object", "properties": {"probe_key": {"type": "string"}}}}}])");
    try {
      jinja::Context ctx = jinja::chat_context(messages, &tools, true, "", "");
      return template_.render(ctx).text.find(expect) != std::string::npos;
    } catch (const std::exception&) {
      return false;
    }
  }

  jinja::Template template_;
  ArgumentsStyle arguments_ = ArgumentsStyle::kAsGiven;
  bool null_content_ok_ = true;
};

}  // namespace

std::unique_ptr<ChatTemplate> make_jinja_chat_template(std::string_view source) {
  return std::make_unique<JinjaChatTemplate>(jinja::Template::parse(source));
}

}  // namespace a3s::power::chat
