// The Jinja interpreter: syntax errors, whitespace control, expressions, filters, tests, methods,
// the sandbox limits and the caller spans.
#include <gtest/gtest.h>

#include <string>

#include "a3s/power/error.h"
#include "chat/jinja/template.h"

namespace a3s::power::chat::jinja {
namespace {

using Json = nlohmann::ordered_json;

Rendered jinja_render_full(const std::string& src, const Json& vars = Json::object(), const Limits& limits = {}) {
  Context ctx;
  for (const auto& [k, v] : vars.items()) ctx.variables[k] = from_json(v, false);
  ctx.now = parse_date("2026-07-26");
  return Template::parse(src).render(ctx, limits);
}

std::string jr(const std::string& src, const Json& vars = Json::object()) { return jinja_render_full(src, vars).text; }

// The error message of rendering src ("" when it renders).
std::string jinja_error(const std::string& src, const Json& vars = Json::object(), const Limits& limits = {}) {
  try {
    jinja_render_full(src, vars, limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

ErrorCode jinja_error_code(const std::string& src, const Limits& limits = {}) {
  try {
    jinja_render_full(src, Json::object(), limits);
  } catch (const Error& e) {
    return e.kind();
  }
  return codes::kInternal;
}

TEST(JinjaSyntax, MalformedTemplatesGiveOneLineErrorsWithPosition) {
  const struct {
    const char* src;
    const char* message;
  } kCases[] = {
      {"{% if x %}a", "TemplateSyntaxError: unclosed block: missing 'endif' at 1:4"},
      {"ab\n{{ 1 + }}", "TemplateSyntaxError: unexpected token, got end of print statement at 2:8"},
      {"{% endfor %}", "TemplateSyntaxError: unknown statement 'endfor' at 1:4"},
      {"{{ 'abc }}", "TemplateSyntaxError: unclosed tag at 1:1"},
      {"{{ x", "TemplateSyntaxError: unclosed tag at 1:1"},
      {"{# never closed", "TemplateSyntaxError: unclosed comment at 1:1"},
      {"{% for in x %}{% endfor %}", "TemplateSyntaxError: expected a name, got 'in' at 1:8"},
      {"{{ a $ b }}", "TemplateSyntaxError: unexpected character '$' at 1:6"},
      {"{% set x %}", "TemplateSyntaxError: unclosed block: missing 'endset' at 1:4"},
      {"{{ f(a=1, 2) }}", "TemplateSyntaxError: positional argument after keyword argument at 1:11"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(jinja_error(c.src), c.message) << c.src;
    EXPECT_EQ(jinja_error_code(c.src), codes::kUnsupportedChatTemplate) << c.src;
  }
}

TEST(JinjaSyntax, DeepNestingIsRefused) {
  const std::string deep = "{{ " + std::string(500, '(') + "1" + std::string(500, ')') + " }}";
  EXPECT_NE(jinja_error(deep).find("nesting deeper than"), std::string::npos);
  std::string ifs;
  for (int k = 0; k < 500; ++k) ifs += "{% if true %}";
  EXPECT_NE(jinja_error(ifs).find("nesting deeper than"), std::string::npos);
  std::string lists = "{{ " + std::string(500, '[') + std::string(500, ']') + " }}";
  EXPECT_NE(jinja_error(lists).find("nesting deeper than"), std::string::npos);
  std::string nots = "{{ " ;
  for (int k = 0; k < 500; ++k) nots += "not ";
  EXPECT_NE(jinja_error(nots + "1 }}").find("nesting deeper than"), std::string::npos);
}

TEST(JinjaWhitespace, TrimBlocksAndLstripBlocks) {
  EXPECT_EQ(jr("{% if true %}\nyes\n{% endif %}\nafter"), "yes\nafter");
  EXPECT_EQ(jr("a\n    {% if true %}\n    b\n    {% endif %}\nc"), "a\n    b\nc");
  EXPECT_EQ(jr("a  {%- if true -%}  b  {%- endif -%}  c"), "abc");
  EXPECT_EQ(jr("a\n  {%+ if true %}b{% endif %}"), "a\n  b");
  EXPECT_EQ(jr("{% if true +%}\nb{% endif %}"), "\nb");
  EXPECT_EQ(jr("x {{- ' y ' -}} z"), "x y z");
  EXPECT_EQ(jr("a\n  {# note #}\nb"), "a\nb");
  EXPECT_EQ(jr("  {{ 1 }}\n"), "  1\n");  // no trimming around {{ }}
  EXPECT_EQ(jr("{% raw %}{{ not evaluated }}{% endraw %}"), "{{ not evaluated }}");
}

TEST(JinjaExpressions, LiteralsAndOperators) {
  EXPECT_EQ(jr("{{ 'a\\n\\t\\'b' ~ \"\\u00e9\" }}"), "a\n\t'bé");
  EXPECT_EQ(jr("{{ 1 + 2 * 3 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ 2 ** 10 }} {{ 7 / 2 }}"), "7 3 -4 1 1024 3.5");
  EXPECT_EQ(jr("{{ true }} {{ True }} {{ none }} {{ None }} {{ 1.0 }} {{ 1e-5 }}"), "True True None None 1.0 1e-05");
  EXPECT_EQ(jr("{{ [1, 'a', none] }} {{ {'k': (1,)} }}"), "[1, 'a', None] {'k': (1,)}");
  EXPECT_EQ(jr("{{ 'b' in 'abc' }} {{ 2 not in [1, 3] }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}"), "True True True False");
  EXPECT_EQ(jr("{{ 'yes' if 1 else 'no' }}|{{ 'x' if false }}|{{ 0 or 'd' }}|{{ 1 and 2 }}|{{ not 0 }}"),
            "yes||d|2|True");
  EXPECT_EQ(jr("{{ 'a' ~ 1 ~ none }} {{ 'ab' * 3 }} {{ [1] + [2] }}"), "a1None ababab [1, 2]");
  EXPECT_EQ(jr("{{ 'héllo'[1] }} {{ 'hello'[1:3] }} {{ 'hello'[::-1] }} {{ [1,2,3][-1] }} {{ [1,2,3][:2] }}"),
            "é el olleh 3 [1, 2]");
  EXPECT_EQ(jr("{{ d.a }} {{ d['a'] }} {{ d.items() | list }}", {{"d", {{"a", 1}}}}), "1 1 [('a', 1)]");
  EXPECT_EQ(jr("{{ 1 == 1.0 }} {{ 'a' != 'b' }} {{ [1, 2] == [1, 2] }}"), "True True True");
}

TEST(JinjaExpressions, UndefinedBehavesLikeJinja2Default) {
  EXPECT_EQ(jr("[{{ missing }}][{{ missing ~ 'x' }}][{{ missing | length }}][{% for x in missing %}x{% endfor %}]"),
            "[][x][0][]");
  EXPECT_EQ(jr("{{ missing is defined }} {{ missing is undefined }} {{ d.nokey is defined }}", {{"d", Json::object()}}),
            "False True False");
  EXPECT_EQ(jinja_error("{{ missing.attr }}"), "UndefinedError: 'missing' is undefined");
  EXPECT_EQ(jinja_error("{{ missing + 'x' }}"), "UndefinedError: 'missing' is undefined");
  EXPECT_EQ(jinja_error("{{ d.nokey.x }}", {{"d", Json::object()}}), "UndefinedError: 'dict object' has no attribute 'nokey'");
  EXPECT_EQ(jinja_error("{{ 'a' + 1 }}"), "TypeError: can only concatenate str (not \"int\") to str");
  EXPECT_EQ(jinja_error("{{ 1 + 'a' }}"), "TypeError: unsupported operand type(s) for +: 'int' and 'str'");
  EXPECT_EQ(jinja_error("{{ 1 < 'a' }}"), "TypeError: '<' not supported between instances of 'int' and 'str'");
  EXPECT_EQ(jinja_error("{{ raise_exception('Only user and assistant') }}"), "TemplateError: Only user and assistant");
  EXPECT_EQ(jinja_error("{{ x | nosuchfilter }}"), "TemplateRuntimeError: No filter named 'nosuchfilter' found.");
}

TEST(JinjaStatements, ForLoopsAndLoopVariables) {
  EXPECT_EQ(jr("{% for x in [1,2,3] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}"),
            "103TrueFalse3;212FalseFalse3;321FalseTrue3;");
  EXPECT_EQ(jr("{% for x in [1,2,3] %}{{ loop.previtem | default('-') }}{{ loop.nextitem | default('-') }} {% endfor %}"),
            "-2 13 2- ");
  EXPECT_EQ(jr("{% for x in [] %}a{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(jr("{% for x in range(10) if x is odd %}{{ x }}{{ loop.length }} {% endfor %}"), "15 35 55 75 95 ");
  EXPECT_EQ(jr("{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 4 %}{% break %}{% endif %}{{ x }}{% endfor %}"),
            "013");
  EXPECT_EQ(jr("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {{"d", {{"b", 1}, {"a", 2}}}}), "b=1;a=2;");
  EXPECT_EQ(jr("{% for a, b in [(1, 2), [3, 4]] %}{{ a + b }}{% endfor %}"), "37");
  EXPECT_EQ(jr("{% for c in 'hé' %}[{{ c }}]{% endfor %}"), "[h][é]");
  EXPECT_EQ(jr("{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}"), "1");
}

TEST(JinjaStatements, SetNamespaceMacroCallFilter) {
  EXPECT_EQ(jr("{% set ns = namespace(n=0, s='') %}{% for i in range(3) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"), "3");
  EXPECT_EQ(jr("{% set a, b = 1, 2 %}{{ a }}{{ b }}"), "12");
  EXPECT_EQ(jr("{% set x %} block {{ 1 }} {% endset %}[{{ x }}]"), "[ block 1 ]");
  EXPECT_EQ(jr("{% set x | trim | upper %} block {% endset %}[{{ x }}]"), "[BLOCK]");
  EXPECT_EQ(jr("{% macro m(a, b='B', c=none) %}{{ a }}{{ b }}{{ c }}{{ kwargs.z }}{{ varargs | length }}{% endmacro %}"
               "{{ m(1) }}|{{ m(1, 2, 3, 4) }}|{{ m(1, c='C', z='Z') }}"),
            "1BNone0|1231|1BCZ0");
  EXPECT_EQ(jr("{% macro box() %}[{{ caller() }}]{% endmacro %}{% call box() %}inside{% endcall %}"), "[inside]");
  EXPECT_EQ(jr("{% filter upper %}abc{% endfilter %}"), "ABC");
  EXPECT_EQ(jr("{{ strftime_now('%d %b %Y') }} {{ strftime_now('%Y-%m-%d') }}"), "26 Jul 2026 2026-07-26");
  EXPECT_EQ(jr("{% set d = dict(a=1) %}{{ d }}"), "{'a': 1}");
}

TEST(JinjaFilters, StringAndSequenceFilters) {
  EXPECT_EQ(jr("[{{ '  a b \\n' | trim }}][{{ 'xxaxx' | trim('x') }}][{{ 'ab' | upper }}][{{ 'AB' | lower }}]"), "[a b][a][AB][ab]");
  EXPECT_EQ(jr("{{ 'hello wORLD-x' | title }} {{ 'hELLO' | capitalize }} {{ 'a-b' | replace('-', '+') }}"),
            "Hello World-X Hello a+b");
  EXPECT_EQ(jr("{{ [3, 1, 2] | sort | list }} {{ [3, 1, 2] | sort(reverse=true) | first }} {{ [1, 2] | last }}"), "[1, 2, 3] 3 2");
  EXPECT_EQ(jr("{{ ['a', 'A', 'b'] | unique | list }} {{ [1, 2] | reverse | list }} {{ 'abc' | reverse }}"), "['a', 'b'] [2, 1] cba");
  EXPECT_EQ(jr("{{ [1, 2, 3] | join(', ') }} {{ d | items | list }} {{ d | dictsort }}", {{"d", {{"b", 1}, {"a", 2}}}}),
            "1, 2, 3 [('b', 1), ('a', 2)] [('a', 2), ('b', 1)]");
  const Json people = {{"people", Json::array({{{"n", "x"}, {"ok", true}}, {{"n", "y"}, {"ok", false}}, {{"n", "z"}}})}};
  EXPECT_EQ(jr("{{ people | map(attribute='n') | join }} {{ people | selectattr('ok') | map(attribute='n') | list }} "
               "{{ people | rejectattr('ok', 'defined') | length }} {{ people | selectattr('n', 'equalto', 'y') | list | length }}",
               people),
            "xyz ['x'] 1 1");
  EXPECT_EQ(jr("{{ [1, 2, 3, 4] | select('even') | list }} {{ [1, 2, 3] | reject('odd') | list }} {{ ['a'] | map('upper') | list }}"),
            "[2, 4] [2] ['A']");
  EXPECT_EQ(jr("{{ missing | default('d') }} {{ '' | default('e', true) }} {{ none | d('n') }}"), "d e None");
  EXPECT_EQ(jr("{{ '42' | int + 1 }} {{ 'x' | int }} {{ '2.5' | float }} {{ -3 | abs }} {{ 2.567 | round(2) }} {{ 1 | string ~ 'x' }}"),
            "43 0 2.5 3 2.57 1x");
  EXPECT_EQ(jr("{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, first=true) }}"), "a\n  b\n\n  c|  a\n  b");
  EXPECT_EQ(jr("{{ 'one two  three' | wordcount }} {{ [1,2,3] | batch(2) | list }} {{ [3, 1] | min }} {{ 'x' | safe }}"),
            "3 [[1, 2], [3]] 1 x");
  EXPECT_EQ(jr("{{ 'héllo' | length }} {{ [1, 2] | count }} {{ d | length }}", {{"d", {{"a", 1}}}}), "5 2 1");
}

TEST(JinjaFilters, TojsonIsPythonJsonDumps) {
  const Json v = {{"d", {{"b", "é\"\n"}, {"a", Json::array({1, 2.5, nullptr, true})}, {"e", Json::object()}}}};
  EXPECT_EQ(jr("{{ d | tojson }}", v), "{\"b\": \"é\\\"\\n\", \"a\": [1, 2.5, null, true], \"e\": {}}");
  EXPECT_EQ(jr("{{ d.a | tojson(indent=2) }}", v), "[\n  1,\n  2.5,\n  null,\n  true\n]");
  EXPECT_EQ(jr("{{ 'x' | tojson(ensure_ascii=False) }}"), "\"x\"");
  EXPECT_EQ(jr("{{ 'é😀\\n' | tojson(ensure_ascii=true) }}"), "\"\\u00e9\\ud83d\\ude00\\n\"");
  EXPECT_EQ(jr("{{ {'b': 1, 'a': [1, 2]} | tojson(separators=(',', ':'), sort_keys=true) }}"), "{\"a\":[1,2],\"b\":1}");
  EXPECT_EQ(jr("{{ {'a': 1} | tojson(indent=1, separators=(';', '=')) }}"), "{\n \"a\"=1\n}");
  EXPECT_EQ(jinja_error("{{ missing | tojson }}"), "TypeError: Object of type Undefined is not JSON serializable");
}

TEST(JinjaTests, BuiltinTests) {
  EXPECT_EQ(jr("{{ 'a' is string }}{{ 1 is number }}{{ 1 is integer }}{{ 1.5 is float }}{{ true is boolean }}"
               "{{ {} is mapping }}{{ [] is iterable }}{{ 'a' is sequence }}{{ none is none }}{{ 1 is not none }}"),
            "TrueTrueTrueTrueTrueTrueTrueTrueTrueTrue");
  EXPECT_EQ(jr("{{ 3 is odd }}{{ 4 is even }}{{ 9 is divisibleby(3) }}{{ 9 is divisibleby 4 }}{{ 'a' is eq('a') }}"
               "{{ 'a' is equalto 'b' }}{{ 1 is ne(2) }}{{ 'a' is in('abc') }}{{ range is callable }}{{ true is true }}{{ 0 is false }}"),
            "TrueTrueTrueFalseTrueFalseTrueTrueTrueTrueFalse");
  EXPECT_EQ(jinja_error("{{ 1 is nosuchtest }}"), "TemplateRuntimeError: No test named 'nosuchtest' found.");
  // A name the template computes (select's, reject's, map's argument) may come from a message: an
  // unknown one is not quoted.
  EXPECT_EQ(jinja_error("{{ [1] | select('secret words') | list }}"), "TemplateRuntimeError: No test of the name given found.");
  EXPECT_EQ(jinja_error("{{ [1] | map('secret words') | list }}"), "TemplateRuntimeError: No filter of the name given found.");
}

TEST(JinjaMethods, StringDictAndListMethods) {
  EXPECT_EQ(jr("[{{ ' a '.strip() }}][{{ 'xay'.strip('xy') }}][{{ ' a '.lstrip() }}][{{ ' a '.rstrip() }}][{{ '\\n\\na'.lstrip('\\n') }}]"),
            "[a][a][a ][ a][a]");
  EXPECT_EQ(jr("{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'a,b,c'.split(',', 1) }} {{ 'a,b,c'.rsplit(',', 1) }}"),
            "['a', 'b', '', 'c'] ['a', 'b'] ['a', 'b,c'] ['a,b', 'c']");
  EXPECT_EQ(jr("{{ 'abc'.startswith('ab') }}{{ 'abc'.endswith(('x', 'c')) }}{{ 'aXa'.replace('a', 'b') }}{{ 'abc'.find('c') }}"
               "{{ 'aaa'.count('a') }}{{ 'hello world'.title() }}{{ 'x{}y{0}'.format(1) }}{{ '-'.join(['a', 'b']) }}"),
            "TrueTruebXb23Hello Worldx1y1a-b");
  EXPECT_EQ(jr("{{ d.get('a') }}{{ d.get('z') }}{{ d.get('z', 5) }}{{ d.keys() | list }}{{ d.values() | list }}",
               {{"d", {{"a", 1}}}}),
            "1None5['a'][1]");
  EXPECT_EQ(jr("{{ [1, 2, 2].count(2) }}{{ [1, 2].index(2) }}"), "21");
  EXPECT_EQ(jinja_error("{% set l = [] %}{% set _ = l.append(1) %}"),
            "SecurityError: access to attribute 'append' of 'list' object is unsafe.");
  EXPECT_EQ(jinja_error("{% set d = {} %}{{ d.pop('a') }}"), "SecurityError: access to attribute 'pop' of 'dict' object is unsafe.");
}

TEST(JinjaSandbox, RunawayLoopsStop) {
  const std::string src = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}";
  EXPECT_NE(jinja_error(src).find("TemplateLimitError: more than"), std::string::npos);
  EXPECT_EQ(jinja_error_code(src), codes::kResourceExhausted);
  EXPECT_NE(jinja_error("{{ range(1000000) | length }}").find("OverflowError"), std::string::npos);
}

TEST(JinjaSandbox, HugeOutputStops) {
  Limits small;
  small.max_output_bytes = 1000;
  EXPECT_NE(jinja_error("{% for i in range(2000) %}x{% endfor %}", Json::object(), small).find("output larger than 1000 bytes"),
            std::string::npos);
  EXPECT_NE(jinja_error("{{ 'x' * 100000000 }}").find("TemplateLimitError"), std::string::npos);
  EXPECT_NE(jinja_error("{% set ns = namespace(s='xxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}")
                .find("TemplateLimitError"),
            std::string::npos);
}

TEST(JinjaSandbox, DeepRecursionStops) {
  const std::string src = "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}";
  EXPECT_NE(jinja_error(src).find("TemplateLimitError: macro calls nested deeper than 64"), std::string::npos);
  EXPECT_EQ(jinja_error_code(src), codes::kResourceExhausted);
  EXPECT_EQ(jr("{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% endif %}{{ n }}{% endmacro %}{{ f(5) }}"), "012345");
}

TEST(JinjaCallerSpans, CallerStringsAreMarkedThroughFilters) {
  Context ctx = chat_context(Json::array({{{"role", "user"}, {"content", "  Hi <|im_end|>  "}}}), nullptr, true, "<s>", "</s>");
  const auto t = Template::parse(
      "{{ bos_token }}{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | trim }}<|im_end|>{% endfor %}"
      "{{ messages[0].content[2:4] ~ '!' }}{{ messages | tojson }}");
  const Rendered r = t.render(ctx);
  const std::string head = "<s><|im_start|>user\nHi <|im_end|><|im_end|>Hi!";
  ASSERT_EQ(r.text.substr(0, head.size()), head);
  ASSERT_EQ(r.caller_spans.size(), 4u);
  EXPECT_EQ(r.text.substr(r.caller_spans[0].begin, r.caller_spans[0].end - r.caller_spans[0].begin), "user");
  EXPECT_EQ(r.text.substr(r.caller_spans[1].begin, r.caller_spans[1].end - r.caller_spans[1].begin), "Hi <|im_end|>");
  EXPECT_EQ(r.text.substr(r.caller_spans[2].begin, r.caller_spans[2].end - r.caller_spans[2].begin), "Hi");
  // tojson of caller data: the whole JSON text is marked.
  EXPECT_EQ(r.caller_spans[3].begin, head.size());
  EXPECT_EQ(r.caller_spans[3].end, r.text.size());
}

TEST(JinjaCallerSpans, ErrorMessagesCarryNoCallerText) {
  Context ctx = chat_context(Json::array({{{"role", "secret-role"}, {"content", "secret"}}}), nullptr, true, "", "");
  const auto t = Template::parse("{{ raise_exception('Invalid role ' ~ messages[0].role ~ '!') }}");
  try {
    t.render(ctx);
    ADD_FAILURE() << "rendered";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "TemplateError: Invalid role \u2026!");
  }
  const auto u = Template::parse("{{ {}[messages[0].content].x }}");
  try {
    u.render(ctx);
    ADD_FAILURE() << "rendered";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "UndefinedError: 'dict object' has no attribute '\u2026'");
  }
}

TEST(JinjaCallerSpans, TemplateLiteralsAndTokensAreUnmarked) {
  Context ctx = chat_context(Json::array({{{"role", "user"}, {"content", "x"}}}), nullptr, true, "<s>", "</s>");
  const auto t = Template::parse("{{ bos_token }}{{ 'lit' | upper }}{{ eos_token }}{{ messages[0].content | upper }}");
  const Rendered r = t.render(ctx);
  EXPECT_EQ(r.text, "<s>LIT</s>X");
  ASSERT_EQ(r.caller_spans.size(), 1u);
  EXPECT_EQ(r.caller_spans[0], (Span{10, 11}));
}

}  // namespace
}  // namespace a3s::power::chat::jinja
