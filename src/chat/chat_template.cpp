#include "chat/chat_template.h"

#include <cctype>
#include <ctime>

#include "chat/conversation.h"
#include "chat/families/render_context.h"
#include "chat/jinja_chat_template.h"
#include "chat/template_detection.h"

namespace a3s::power::chat {
namespace {

// strftime("%d %b %Y") of a "YYYY-MM-DD" date (C locale month names); empty → today (local time).
std::string day_month_year(const std::string& today) {
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  int year = 0;
  int month = 0;
  int day = 0;
  if (today.empty()) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    year = local.tm_year + 1900;
    month = local.tm_mon + 1;
    day = local.tm_mday;
  } else {
    bool ok = today.size() == 10 && today[4] == '-' && today[7] == '-';
    for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
      ok = ok && std::isdigit(static_cast<unsigned char>(today[i]));
    }
    if (ok) {
      year = std::stoi(today.substr(0, 4));
      month = std::stoi(today.substr(5, 2));
      day = std::stoi(today.substr(8, 2));
    }
    if (!ok || month < 1 || month > 12 || day < 1 || day > 31) {
      throw Error(codes::kInvalidArgument, "chat template date must be YYYY-MM-DD");
    }
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d %s %04d", day, kMonths[month - 1], year);
  return buf;
}

bool blank(const std::string& s) {
  for (unsigned char c : s) {
    if (!std::isspace(c)) return false;
  }
  return true;
}

bool template_kwargs_given(const RenderOptions& opts) {
  return opts.template_kwargs != nullptr && opts.template_kwargs->is_object() && !opts.template_kwargs->empty();
}

class BuiltinTemplate final : public ChatTemplate {
 public:
  explicit BuiltinTemplate(Detection d) : detection_(std::move(d)), info_(variant_info(detection_.variant)) {}

  std::string family() const override { return info_.family; }
  std::string variant() const override { return info_.name; }
  bool supports_tools() const override { return info_.presents_tools; }
  ArgumentsStyle tool_call_arguments() const override { return info_.arguments; }

  using ChatTemplate::render;

  std::string render(const Messages& messages, const RenderOptions& opts) const override {
    if (messages.empty()) {
      throw FieldError(codes::kInvalidRequest, "messages", "messages must contain at least one message");
    }
    if (template_kwargs_given(opts)) {
      throw FieldError(codes::kUnsupportedField, "chat_template_kwargs",
                       std::string("chat_template_kwargs need a template run by the Jinja interpreter; this "
                                   "model's template is the built-in family ") + info_.family);
    }
    if (!opts.reasoning_effort.empty()) {
      throw FieldError(codes::kUnsupportedField, "reasoning_effort",
                       std::string("reasoning_effort needs a template run by the Jinja interpreter; this model's "
                                   "template is the built-in family ") + info_.family);
    }
    nlohmann::ordered_json view = to_json(messages);  // the form the renderers read
    validate_tools(opts.tools);
    if (opts.adapt_tool_call_arguments) adapt_tool_call_arguments(view, info_.arguments);
    const RenderContext ctx{view,
                            opts.tools.is_null() ? nullptr : &opts.tools,
                            opts.bos_token,
                            opts.eos_token,
                            opts.add_generation_prompt,
                            day_month_year(opts.today),
                            detection_.traits};
    return info_.render(ctx);
  }

 private:
  Detection detection_;
  const VariantInfo& info_;
};

}  // namespace

std::string ChatTemplate::render(const nlohmann::json& messages, const RenderOptions& opts) const {
  return render(parse_messages(messages, MessagePolicy::kTemplate), opts);
}

std::string ChatTemplate::render_ordered(const nlohmann::ordered_json& messages, const RenderOptions& opts) const {
  return render(parse_messages(messages, MessagePolicy::kTemplate), opts);
}

std::unique_ptr<ChatTemplate> ChatTemplate::create(const std::optional<std::string>& template_source,
                                                   const std::string& fallback_family) {
  std::optional<Detection> fallback;
  if (!fallback_family.empty()) {
    fallback = variant_by_name(fallback_family);
    if (!fallback)
      throw Error(codes::kInvalidArgument, "unknown chat template family (see known_families())");
  }
  if (!template_source || blank(*template_source)) {
    return std::make_unique<BuiltinTemplate>(fallback ? *fallback : *variant_by_name("plain"));
  }
  if (auto d = detect_template(*template_source)) return std::make_unique<BuiltinTemplate>(*d);
  try {
    return make_jinja_chat_template(*template_source);
  } catch (const Error&) {
    if (fallback) return std::make_unique<BuiltinTemplate>(*fallback);
    throw;
  }
}

std::vector<std::string> ChatTemplate::known_families() {
  return known_names();
}

}  // namespace a3s::power::chat
