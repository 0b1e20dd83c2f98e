// Random, mostly malformed conversations and tools against every template: rendering either
// succeeds or throws a3s::power::Error (with a known code), never anything else, never a crash.
#include <gtest/gtest.h>

#include <random>

#include "chat_test_data.h"

namespace a3s::power::chat {
namespace {

using ojson = nlohmann::ordered_json;

class RandomJson {
 public:
  explicit RandomJson(unsigned seed) : rng_(seed) {}

  int pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }

  ojson scalar() {
    switch (pick(8)) {
      case 0:
        return nullptr;
      case 1:
        return pick(2) == 0;
      case 2:
        return pick(100) - 50;
      case 3:
        return 0.25 * pick(9);
      case 4:
        return "";
      case 5:
        return " text \xc3\xbc\xf0\x9f\xa6\x99 ";
      case 6:
        return kKeys[pick(kKeyCount)];
      default:
        return "abcDEF123";
    }
  }

  ojson any(int depth) {
    if (depth > 3) return scalar();
    switch (pick(4)) {
      case 0: {
        ojson a = ojson::array();
        for (int i = pick(4); i > 0; --i) a.push_back(any(depth + 1));
        return a;
      }
      case 1: {
        ojson o = ojson::object();
        for (int i = pick(5); i > 0; --i) o[kKeys[pick(kKeyCount)]] = any(depth + 1);
        return o;
      }
      default:
        return scalar();
    }
  }

  // A message that is often, but not always, well formed.
  ojson message() {
    static const char* kRoles[] = {"system", "user", "assistant", "tool"};
    ojson m = ojson::object();
    m["role"] = pick(10) == 0 ? any(2) : ojson(kRoles[pick(4)]);
    if (pick(8) != 0) m["content"] = pick(3) == 0 ? any(1) : scalar();
    if (pick(4) == 0) {
      ojson calls = ojson::array();
      for (int i = pick(3); i > 0; --i) {
        ojson fn = {{"name", pick(6) == 0 ? any(1) : ojson("f")},
                    {"arguments", pick(2) ? any(1) : ojson("{}")}};
        calls.push_back({{"id", scalar()}, {"type", "function"}, {"function", fn}});
      }
      m["tool_calls"] = pick(6) == 0 ? any(1) : calls;
    }
    if (pick(4) == 0) m["tool_call_id"] = scalar();
    return m;
  }

  ojson tools() {
    ojson t = ojson::array();
    for (int i = pick(3); i > 0; --i) {
      ojson params = {{"type", "object"}, {"properties", any(0)}};
      if (pick(2)) params["required"] = any(1);
      t.push_back({{"type", "function"},
                   {"function", {{"name", "f"}, {"description", scalar()}, {"parameters", params}}}});
    }
    return pick(8) == 0 ? any(1) : t;
  }

 private:
  static constexpr const char* kKeys[] = {
      "type",    "properties", "items",  "enum",     "required", "description",
      "default", "oneOf",      "format", "examples", "nullable", "content",
      "text",    "string",     "object", "array",    "maximum",  "additionalProperties"};
  static constexpr int kKeyCount = sizeof(kKeys) / sizeof(kKeys[0]);
  std::mt19937 rng_;
};

bool known_code(const std::string& code) {
  return code == "invalid_request_error" || code == "unsupported_field";
}

TEST(Robustness, RandomInputOnlyEverThrowsTypedErrors) {
  std::vector<std::unique_ptr<ChatTemplate>> templates;
  for (const auto& name : testing::family_template_names())
    templates.push_back(ChatTemplate::create(testing::template_source(name)));
  templates.push_back(ChatTemplate::create(std::nullopt));
  for (const char* family : {"chatml", "llama2", "llama3", "phi3"})
    templates.push_back(ChatTemplate::create("?", family));
  ASSERT_GE(templates.size(), 15u);

  RandomJson gen(20260726);
  int rendered = 0;
  int refused = 0;
  for (int iteration = 0; iteration < 150; ++iteration) {
    ojson messages = ojson::array();
    for (int i = gen.pick(5); i >= 0; --i) messages.push_back(gen.message());
    if (gen.pick(20) == 0) messages = gen.any(1);
    RenderOptions opts;
    opts.bos_token = "<s>";
    opts.eos_token = "</s>";
    opts.today = "2026-07-26";
    opts.add_generation_prompt = gen.pick(2) == 0;
    opts.adapt_tool_call_arguments = gen.pick(2) == 0;
    if (gen.pick(3) == 0) opts.tools = gen.tools();
    for (const auto& t : templates) {
      try {
        t->render_ordered(messages, opts);
        ++rendered;
      } catch (const Error& e) {
        EXPECT_TRUE(known_code(e.code())) << t->variant() << ": " << e.code() << ": " << e.what();
        EXPECT_FALSE(std::string(e.what()).empty());
        ++refused;
      } catch (const std::exception& e) {
        ADD_FAILURE() << t->variant() << " threw a non-Error exception: " << e.what() << "\n"
                      << messages.dump();
      }
    }
  }
  EXPECT_GT(rendered, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace a3s::power::chat
