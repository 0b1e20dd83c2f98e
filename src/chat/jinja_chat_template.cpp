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
  explicit JinjaChatTemplate(jinja::Template t) : template_(std::move(t)) {}

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
    // Tool-call arguments go to the template as given, as transformers passes them
    // (RenderOptions::adapt_tool_call_arguments is for the built-in families).
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

 private:
  jinja::Template template_;
};

}  // namespace

std::unique_ptr<ChatTemplate> make_jinja_chat_template(std::string_view source) {
  return std::make_unique<JinjaChatTemplate>(jinja::Template::parse(source));
}

}  // namespace a3s::power::chat
