// Recognition of templates by signature.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

TEST(Detection, EverySharedTemplateIsRecognisedAsItsFamily) {
  const auto& expected = testing::family_templates();
  ASSERT_EQ(testing::family_template_names().size(), expected.size()) << "shared templates missing";
  for (const auto& name : testing::family_template_names()) {
    SCOPED_TRACE(name);
    const auto tmpl = ChatTemplate::create(testing::template_source(name));
    EXPECT_EQ(tmpl->family(), expected.at(name).first);
    EXPECT_EQ(tmpl->variant(), expected.at(name).second);
  }
}

// A shared template of no family the engine has is run by the Jinja interpreter, never rendered by a
// family that merely looks similar; a configured fallback family is used instead.
TEST(Detection, EverySharedTemplateOfNoKnownFamilyRunsInTheInterpreterFallbackOrNot) {
  int others = 0;
  const auto conversation = nlohmann::json::parse(R"([{"role":"user","content":"Hi"}])");
  for (const auto& name : testing::template_names()) {
    if (testing::family_templates().count(name)) continue;
    SCOPED_TRACE(name);
    ++others;
    const auto tmpl = ChatTemplate::create(testing::template_source(name));
    EXPECT_EQ(tmpl->family(), "jinja");
    EXPECT_EQ(tmpl->variant(), "jinja");
    RenderOptions opts;
    opts.today = "2026-01-02";
    std::string via_interpreter;
    try {
      jinja::Context ctx = jinja::chat_context(nlohmann::ordered_json::parse(conversation.dump()), nullptr, true, "", "");
      ctx.now = jinja::parse_date("2026-01-02");
      via_interpreter = jinja::Template::parse(testing::template_source(name)).render(ctx).text;
    } catch (const Error& e) {
      EXPECT_THROW(tmpl->render(conversation, opts), Error) << "the interpreter raised " << e.what();
      continue;
    }
    EXPECT_EQ(tmpl->render(conversation, opts), via_interpreter);
    EXPECT_EQ(ChatTemplate::create(testing::template_source(name), "chatml")->family(), "jinja");
  }
  EXPECT_GT(others, 0);
  RecordProperty("templates_without_family", others);
}

TEST(Detection, ToolPresentingVariantsSaySo) {
  EXPECT_TRUE(ChatTemplate::create(testing::template_source("Qwen-Qwen2.5-7B-Instruct"))->supports_tools());
  EXPECT_TRUE(
      ChatTemplate::create(testing::template_source("meta-llama-Llama-3.1-8B-Instruct"))->supports_tools());
  EXPECT_FALSE(ChatTemplate::create(testing::template_source("google-gemma-2-2b-it"))->supports_tools());
  EXPECT_FALSE(ChatTemplate::create(std::nullopt)->supports_tools());
}

TEST(Detection, RandomTextIsNeverAFamily) {
  std::mt19937 rng(1234);
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz {}%|<>[]'\"\n_-.";
  int refused = 0;
  for (int n = 0; n < 50; ++n) {
    std::string s;
    for (int i = 0; i < 200; ++i) s += alphabet[rng() % alphabet.size()];
    try {
      EXPECT_EQ(ChatTemplate::create(s)->family(), "jinja") << "random text recognised as a family";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), "unsupported_chat_template");
      ++refused;
    }
  }
  EXPECT_GT(refused, 0) << "malformed Jinja is refused";
}

TEST(Detection, AnUnknownTemplateRunsInTheInterpreterAndAMalformedOneIsUnsupported) {
  const std::string source =
      "{% for message in messages %}<<{{ message['role'] }}>>{{ message['content'] }}{% endfor %}";
  const auto jinja_tmpl = ChatTemplate::create(source);
  EXPECT_EQ(jinja_tmpl->family(), "jinja");
  EXPECT_EQ(jinja_tmpl->render(nlohmann::json::parse(R"([{"role":"user","content":"Hi"}])"), {}), "<<user>>Hi");
  const auto spans = jinja_tmpl->render_with_caller_spans(parse_messages(nlohmann::json::parse(
      R"([{"role":"user","content":"Hi"}])"), MessagePolicy::kTemplate), {});
  ASSERT_TRUE(spans.has_value());
  EXPECT_EQ(spans->caller_spans, (jinja::Spans{{2, 6}, {8, 10}}));  // "user" and "Hi"
  EXPECT_THROW(jinja_tmpl->render(nlohmann::json::array(), {}), Error) << "no messages";

  const std::string malformed = "{% for message in messages %}<<{{ message['role'] }}";
  try {
    ChatTemplate::create(malformed);
    FAIL() << "expected unsupported_chat_template";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "unsupported_chat_template");
    EXPECT_EQ(http_status_for(e.code()), 400);
    EXPECT_NE(std::string(e.what()).find("TemplateSyntaxError"), std::string::npos);
  }
  const auto tmpl = ChatTemplate::create(malformed, "chatml");
  EXPECT_EQ(tmpl->family(), "chatml");
  EXPECT_EQ(tmpl->render(nlohmann::json::parse(R"([{"role":"user","content":"Hi"}])"), {}),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_FALSE(tmpl->render_with_caller_spans(parse_messages(nlohmann::json::parse(
      R"([{"role":"user","content":"Hi"}])"), MessagePolicy::kTemplate), {}).has_value());
}

TEST(Detection, FallbackNamesAreFamiliesOrVariants) {
  for (const auto& name : ChatTemplate::known_families()) {
    SCOPED_TRACE(name);
    const auto tmpl = ChatTemplate::create(std::nullopt, name);
    EXPECT_TRUE(tmpl->family() == name || tmpl->variant() == name);
  }
  EXPECT_EQ(ChatTemplate::create(std::nullopt, "llama3")->variant(), "llama3.0");
  EXPECT_EQ(ChatTemplate::create(std::nullopt, "llama3.2")->variant(), "llama3.2");
  try {
    ChatTemplate::create("not a template", "no-such-family");
    FAIL() << "expected invalid_argument";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
}

TEST(Detection, MissingOrBlankTemplateIsPlain) {
  EXPECT_EQ(ChatTemplate::create(std::nullopt)->family(), "plain");
  EXPECT_EQ(ChatTemplate::create(std::string(" \n\t"))->family(), "plain");
  // A recognised template wins over the fallback.
  EXPECT_EQ(ChatTemplate::create(testing::template_source("google-gemma-2-2b-it"), "chatml")->family(),
            "gemma");
}

TEST(Detection, ChatTemplateKwargsReachOnlyInterpreterRunTemplates) {
  const Messages hi = parse_messages(nlohmann::json::parse(R"([{"role":"user","content":"Hi"}])"), MessagePolicy::kTemplate);
  const auto jinja_tmpl = ChatTemplate::create("{{ messages[0].content }}{% if not enable_thinking %} /no_think{% endif %}");
  const nlohmann::ordered_json off = {{"enable_thinking", false}};
  const nlohmann::ordered_json on = {{"enable_thinking", true}};
  RenderOptions opts;
  opts.template_kwargs = &off;
  const auto rendered = jinja_tmpl->render_with_caller_spans(hi, opts);
  EXPECT_EQ(rendered->text, "Hi /no_think");
  EXPECT_EQ(rendered->caller_spans, (jinja::Spans{{0, 2}}));
  opts.template_kwargs = &on;
  EXPECT_EQ(jinja_tmpl->render(hi, opts), "Hi");
  for (const char* reserved : {"messages", "tools", "add_generation_prompt", "bos_token", "eos_token"}) {
    const nlohmann::ordered_json bad = {{reserved, 1}};
    opts.template_kwargs = &bad;
    try {
      jinja_tmpl->render(hi, opts);
      ADD_FAILURE() << reserved;
    } catch (const FieldError& e) {
      EXPECT_EQ(e.param(), "chat_template_kwargs");
      EXPECT_EQ(e.kind(), codes::kInvalidRequest);
    }
  }
  const auto family = ChatTemplate::create(std::nullopt);  // plain
  opts.template_kwargs = &off;
  try {
    family->render(hi, opts);
    ADD_FAILURE() << "a family took kwargs it cannot read";
  } catch (const FieldError& e) {
    EXPECT_EQ(e.param(), "chat_template_kwargs");
    EXPECT_EQ(e.kind(), codes::kUnsupportedField);
  }
  const nlohmann::ordered_json empty = nlohmann::ordered_json::object();
  opts.template_kwargs = &empty;
  EXPECT_EQ(family->render(hi, opts), "Hi");
}

TEST(Detection, GenericSignatures) {
  // Llama 2: [INST] and <<SYS>>.
  EXPECT_EQ(ChatTemplate::create("{{ bos_token + '[INST] ' }}{{ '<<SYS>>\\n' }}")->variant(), "llama2");
  // Llama 3.0: header tokens without the 3.1 preamble.
  EXPECT_EQ(
      ChatTemplate::create("{{ '<|start_header_id|>' + r + '<|end_header_id|>\\n\\n' + c + '<|eot_id|>' }}")
          ->variant(),
      "llama3.0");
  // ChatML without tools.
  EXPECT_EQ(
      ChatTemplate::create("{{'<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>'}}")->variant(),
      "chatml");
  // Phi-4 style (<|im_sep|>) is not ChatML and a Llama 3.1-like template with vision tokens is not
  // Llama 3.1: the interpreter runs them.
  EXPECT_EQ(ChatTemplate::create("<|im_start|>{{ r }}<|im_sep|>{{ c }}<|im_end|>")->family(), "jinja");
  EXPECT_EQ(ChatTemplate::create("<|start_header_id|> Cutting Knowledge Date: December 2023 <|image|>")->family(),
            "jinja");
  // Mistral templates other than Nemo's are not guessed.
  EXPECT_EQ(ChatTemplate::create("{{ '[INST] ' + message['content'] + ' [/INST]' }}")->family(), "jinja");
}

}  // namespace
}  // namespace a3s::power::chat
