// JSON Schema → grammar (grammar/json_schema.h): every supported keyword compiles into a grammar that
// parse_grammar accepts and whose Matcher accepts the valid documents (whole, then can_end) and
// refuses the invalid ones; every refused keyword and malformed schema gives its error code and a
// message naming the keyword and where it is, never a string value of the schema; the fixture
// tests/data/json_schemas/schemas.json (the schemas the end-to-end structured output test sends)
// compiles, and its examples are accepted and refused as annotated.
#include "grammar/json_schema.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "grammar/grammar.h"
#include "grammar/json_schema_automata.h"
#include "grammar/json_schema_regex.h"
#include "grammar/matcher.h"

namespace a3s::power::grammar::json_schema_test {
namespace {

using nlohmann::ordered_json;

std::shared_ptr<const Grammar> compile(const std::string& schema) {
  return parse_grammar(json_schema_to_grammar(ordered_json::parse(schema)));
}

bool complete(const std::shared_ptr<const Grammar>& g, const std::string& doc) {
  Matcher m(g);
  return m.accept(doc) && m.can_end();
}

// Checks that each of `good` is a sentence and none of `bad` is.
void expect_language(const std::string& schema, const std::vector<std::string>& good,
                     const std::vector<std::string>& bad) {
  SCOPED_TRACE(schema);
  std::shared_ptr<const Grammar> g;
  ASSERT_NO_THROW(g = compile(schema));
  for (const std::string& doc : good) EXPECT_TRUE(complete(g, doc)) << "should accept " << doc;
  for (const std::string& doc : bad) EXPECT_FALSE(complete(g, doc)) << "should refuse " << doc;
}

// The error json_schema_to_grammar throws for `schema`.
Error refusal(const std::string& schema) {
  try {
    json_schema_to_grammar(ordered_json::parse(schema));
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "compiled: " << schema;
  return Error(codes::kInternal, "");
}

void expect_unsupported(const std::string& schema, const std::string& keyword, const std::string& where) {
  const Error e = refusal(schema);
  EXPECT_EQ(e.kind(), ErrorCode::kUnsupportedField) << e.what();
  EXPECT_NE(std::string(e.what()).find("'" + keyword + "'"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
}

void expect_invalid(const std::string& schema, const std::string& fragment) {
  const Error e = refusal(schema);
  EXPECT_EQ(e.kind(), ErrorCode::kInvalidRequest) << e.what();
  EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
}

// ---- Types and layout ----

TEST(JsonSchema, ScalarTypes) {
  expect_language(R"j({"type":"null"})j", {"null"}, {"nul", "0", "\"null\"", " null"});
  expect_language(R"j({"type":"boolean"})j", {"true", "false"}, {"True", "1", "null"});
  expect_language(R"j({"type":"integer"})j", {"0", "-0", "7", "-120", "123456789012345678901234"},
                  {"01", "1.0", "1e3", "+1", "-", "1.5", "\"1\""});
  expect_language(R"j({"type":"number"})j", {"0", "-0.5", "12.25", "1e3", "1E+3", "-2.5e-7", "42"},
                  {"01", ".5", "1.", "1e", "NaN", "Infinity", "--1"});
  expect_language(R"j({"type":"string"})j", {R"j("")j", R"j("abc")j", "\"\xC3\xA9\xF0\x9F\x98\x80\""},
                  {"abc", R"j("abc)j", "'abc'"});
}

TEST(JsonSchema, TypeArraysAndAnySchema) {
  expect_language(R"j({"type":["string","integer"]})j", {R"j("a")j", "3"}, {"3.5", "null", "true"});
  expect_language(R"j({"type":["number","integer"]})j", {"3", "3.5"}, {"\"3\""});
  for (const char* any : {"{}", "true", R"j({"description":"anything"})j"}) {
    expect_language(
        any, {"null", "true", "-1.5e3", R"j("x")j", "[]", R"j([1, {"a": [null]}])j", R"j({"k":{"j":[]}})j"},
        {"", "nul", "[1,]", "{\"a\"}"});
  }
}

TEST(JsonSchema, OnlyOneOptionalSpaceAfterColonAndComma) {
  const std::string schema =
      R"j({"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}},"b":{"type":"boolean"}},
          "required":["a","b"],"additionalProperties":false})j";
  expect_language(
      schema, {R"j({"a":[1,2],"b":true})j", R"j({"a": [1, 2], "b": true})j", R"j({"a":[1, 2],"b": false})j"},
      {R"j({ "a":[1],"b":true})j", R"j({"a":[1],"b":true })j", R"j({"a" :[1],"b":true})j",
       R"j({"a":  [1],"b":true})j", R"j({"a":[1 ,2],"b":true})j", "{\"a\":[1],\n\"b\":true}",
       R"j({"a":[ 1],"b":true})j"});
}

// ---- Strings ----

TEST(JsonSchema, StringEscapes) {
  expect_language(R"j({"type":"string"})j",
                  {R"j("\"\\\/\b\f\n\r\t")j", R"j("\u00e9\u00E9")j", R"j("\ud83d\ude00")j", R"j("\uFFFF")j"},
                  {"\"\x01\"", "\"\t\"", "\"a\nb\"", R"j("\x41")j", R"j("\u12")j", R"j("\ud83d")j",
                   R"j("\ude00")j", R"j("\ud83d\u0041")j", R"j("\")j"});
}

TEST(JsonSchema, StringLengthCountsCodePoints) {
  const std::string schema = R"j({"type":"string","minLength":2,"maxLength":3})j";
  expect_language(schema,
                  {R"j("ab")j", R"j("abc")j", "\"\xC3\xA9\xC3\xA9\"", "\"\xF0\x9F\x98\x80\xF0\x9F\x98\x80\"",
                   R"j("\ud83d\ude00\n")j", R"j("\u0041b")j"},
                  {R"j("a")j", R"j("abcd")j", "\"\xF0\x9F\x98\x80\"", R"j("\ud83d\ude00")j", R"j("")j"});
  expect_language(R"j({"type":"string","maxLength":0})j", {R"j("")j"}, {R"j("a")j"});
  expect_language(R"j({"type":"string","minLength":3})j", {R"j("abc")j", R"j("abcdefgh")j"}, {R"j("ab")j"});
}

TEST(JsonSchema, LongStringBoundsUseNestedBlocks) {
  // Counts above the grammar's repetition bound (1000) nest blocks of 1000.
  const auto g = compile(R"j({"type":"string","minLength":1500,"maxLength":2500})j");
  EXPECT_TRUE(complete(g, "\"" + std::string(1500, 'a') + "\""));
  EXPECT_TRUE(complete(g, "\"" + std::string(2000, 'a') + "\""));
  EXPECT_TRUE(complete(g, "\"" + std::string(2500, 'a') + "\""));
  EXPECT_FALSE(complete(g, "\"" + std::string(1499, 'a') + "\""));
  EXPECT_FALSE(complete(g, "\"" + std::string(2501, 'a') + "\""));
}

TEST(JsonSchema, Formats) {
  expect_language(R"j({"type":"string","format":"date"})j",
                  {R"j("2024-02-29")j", R"j("2000-02-29")j", R"j("2023-12-31")j", R"j("0000-02-29")j",
                   R"j("2023-04-30")j"},
                  {R"j("2023-02-29")j", R"j("1900-02-29")j", R"j("2023-04-31")j", R"j("2023-13-01")j",
                   R"j("2023-00-10")j", R"j("2023-1-01")j", R"j("20230101")j"});
  expect_language(R"j({"type":"string","format":"time"})j",
                  {R"j("00:00:00Z")j", R"j("23:59:59.123456789+14:00")j", R"j("12:30:00-05:30")j"},
                  {R"j("24:00:00Z")j", R"j("12:60:00Z")j", R"j("12:00:60Z")j", R"j("12:00:00")j",
                   R"j("12:00Z")j", R"j("12:00:00.Z")j", R"j("12:00:00+24:00")j"});
  expect_language(
      R"j({"type":"string","format":"date-time"})j",
      {R"j("2024-02-29T12:00:00Z")j", R"j("1999-12-31T23:59:59.5-08:00")j"},
      {R"j("2024-02-29 12:00:00Z")j", R"j("2024-02-30T12:00:00Z")j", R"j("2024-02-29T12:00:00")j"});
  expect_language(
      R"j({"type":"string","format":"uuid"})j",
      {R"j("123e4567-e89b-12d3-a456-426614174000")j", R"j("123E4567-E89B-12D3-A456-426614174000")j"},
      {R"j("123e4567e89b12d3a456426614174000")j", R"j("123e4567-e89b-12d3-a456-42661417400")j",
       R"j("g23e4567-e89b-12d3-a456-426614174000")j"});
  expect_language(R"j({"type":"string","format":"email"})j",
                  {R"j("a@example.com")j", R"j("first.last+tag@sub.example.org")j", R"j("x_y%z@a-b.io")j"},
                  {R"j("a@b")j", R"j("@example.com")j", R"j("a..b@example.com")j", R"j("a@-x.com")j",
                   R"j("a b@x.com")j", R"j("a@x..com")j"});
  expect_language(R"j({"type":"string","format":"ipv4"})j",
                  {R"j("0.0.0.0")j", R"j("255.255.255.255")j", R"j("10.1.20.3")j"},
                  {R"j("256.0.0.1")j", R"j("01.2.3.4")j", R"j("1.2.3")j", R"j("1.2.3.4.5")j"});
  // A format applies to strings only.
  expect_language(R"j({"type":["string","integer"],"format":"date"})j", {R"j("2024-01-01")j", "5"},
                  {R"j("x")j"});
  expect_language(R"j({"type":"integer","format":"int32"})j", {"5"}, {R"j("5")j"});
}

TEST(JsonSchema, FormatWithLengthBounds) {
  expect_language(R"j({"type":"string","format":"email","maxLength":8})j",
                  {R"j("a@b.io")j", R"j("ab@cd.io")j"}, {R"j("abc@cd.io")j", R"j("a@b")j"});
  expect_language(R"j({"type":"string","format":"time","maxLength":9})j", {R"j("12:00:00Z")j"},
                  {R"j("12:00:00.5Z")j", R"j("12:00:00+01:00")j"});
  EXPECT_EQ(refusal(R"j({"type":"string","format":"date","maxLength":5})j").kind(),
            ErrorCode::kInvalidRequest);
}

TEST(JsonSchema, Patterns) {
  expect_language(R"j({"type":"string","pattern":"^[A-Z]{3}-\\d{2,4}$"})j",
                  {R"j("ABC-12")j", R"j("XYZ-1234")j"},
                  {R"j("ABC-1")j", R"j("ABC-12345")j", R"j("abc-12")j", R"j("ABC12")j"});
  // Unanchored: a match anywhere.
  expect_language(R"j({"type":"string","pattern":"ab+c"})j",
                  {R"j("abc")j", R"j("xxabbbcyy")j", R"j("ab\nabc")j"}, {R"j("ac")j", R"j("abx")j"});
  expect_language(R"j({"type":"string","pattern":"^ab"})j", {R"j("ab")j", R"j("abz")j"}, {R"j("zab")j"});
  expect_language(R"j({"type":"string","pattern":"ab$"})j", {R"j("ab")j", R"j("zab")j"}, {R"j("abz")j"});
  // Alternation with per-alternative anchors, groups, non-capturing and named groups.
  expect_language(R"j({"type":"string","pattern":"^(?:cat|dog)s?$|^bird$"})j",
                  {R"j("cat")j", R"j("dogs")j", R"j("bird")j"},
                  {R"j("birds")j", R"j("cow")j", R"j("cats!")j"});
  expect_language(R"j({"type":"string","pattern":"^(?<year>\\d{4})-(\\d\\d)$"})j", {R"j("2024-05")j"},
                  {R"j("2024-5")j"});
  // Classes and escapes: \d \w \s, negated classes, ranges, escaped syntax characters.
  expect_language(R"j({"type":"string","pattern":"^\\w+\\s\\d$"})j", {R"j("a_1 5")j", R"j("x\t9")j"},
                  {R"j("a-1 5")j", R"j("a 55")j"});
  expect_language(R"j({"type":"string","pattern":"^[^a-c]\\.[\\]\\-x]\\(\\)$"})j",
                  {R"j("d.]()")j", R"j("z.-()")j"}, {R"j("a.]()")j", R"j("dx]()")j"});
  expect_language(R"j({"type":"string","pattern":"^\\D\\W\\S$"})j", {R"j("a!b")j"},
                  {R"j("1!b")j", R"j("aab")j", R"j("a! ")j"});
  // '.' is anything but a line terminator; quantifiers * + ? {n} {n,} {n,m}, lazy forms.
  expect_language(R"j({"type":"string","pattern":"^a.c$"})j",
                  {R"j("abc")j", R"j("a\"c")j", R"j("a\\c")j", R"j("a\tc")j"},
                  {R"j("a\nc")j", R"j("a\rc")j", R"j("ac")j"});
  expect_language(R"j({"type":"string","pattern":"^x*y+z?w{2}v{1,}u{0,1}$"})j",
                  {R"j("ywwv")j", R"j("xxyyzwwvvu")j"}, {R"j("ww")j", R"j("ywwu")j", R"j("ywwvuu")j"});
  expect_language(R"j({"type":"string","pattern":"^a+?b*?$"})j", {R"j("a")j", R"j("aabb")j"}, {R"j("b")j"});
  // Escapes by code: \x41 \u0042 \u{1F600} \t \cJ \0.
  expect_language(R"j({"type":"string","pattern":"^\\x41\\u0042\\u{1F600}\\t\\cJ\\0$"})j",
                  {"\"AB\xF0\x9F\x98\x80\\t\\n\\u0000\""}, {R"j("AB")j"});
  // '"' and '\' in the pattern are written escaped in the JSON string.
  expect_language(R"j({"type":"string","pattern":"^\"\\\\$"})j", {R"j("\"\\")j"}, {R"j(""\")j"});
}

TEST(JsonSchema, PatternWithLengthBoundsAndFormat) {
  expect_language(R"j({"type":"string","pattern":"^[a-z]+$","minLength":2,"maxLength":4})j",
                  {R"j("ab")j", R"j("abcd")j"}, {R"j("a")j", R"j("abcde")j", R"j("AB")j"});
  expect_language(R"j({"type":"string","pattern":"^2024-","format":"date"})j", {R"j("2024-05-01")j"},
                  {R"j("2023-05-01")j", R"j("2024-")j"});
}

TEST(JsonSchema, RegexInternals) {
  using schema::matches;
  auto dfa = schema::pattern_dfa("^(a|b)*c{2}$", 1000);
  EXPECT_TRUE(matches(dfa, U"abacc"));
  EXPECT_TRUE(matches(dfa, U"cc"));
  EXPECT_FALSE(matches(dfa, U"abc"));
  auto email = schema::format_dfa("email");
  ASSERT_TRUE(email.has_value());
  EXPECT_TRUE(matches(*email, U"a@b.co"));
  EXPECT_FALSE(schema::format_dfa("hostname").has_value());
}

// ---- Numbers ----

TEST(JsonSchema, IntegerBounds) {
  expect_language(R"j({"type":"integer","minimum":0,"maximum":120})j", {"0", "9", "10", "99", "100", "120"},
                  {"-1", "121", "200", "1000", "-0", "5.0", "00"});
  expect_language(R"j({"type":"integer","minimum":-15,"maximum":-3})j", {"-15", "-10", "-3"},
                  {"-2", "-16", "0", "3"});
  expect_language(R"j({"type":"integer","exclusiveMinimum":-5,"exclusiveMaximum":5})j", {"-4", "0", "4"},
                  {"-5", "5", "-6"});
  // Non-integer bounds on integers: the integers within.
  expect_language(R"j({"type":"integer","minimum":1.5,"maximum":3.5})j", {"2", "3"}, {"1", "4"});
  // One-sided.
  expect_language(R"j({"type":"integer","minimum":10})j", {"10", "11", "100", "123456789"},
                  {"9", "-10", "0"});
  expect_language(R"j({"type":"integer","maximum":-10})j", {"-10", "-11", "-999999"}, {"-9", "0", "10"});
  // The stricter of minimum and exclusiveMinimum.
  expect_language(R"j({"type":"integer","minimum":0,"exclusiveMinimum":0,"maximum":2})j", {"1", "2"}, {"0"});
  // Bounds beyond 64 bits.
  expect_language(R"j({"type":"integer","minimum":1e20})j",
                  {"100000000000000000000", "999999999999999999999"}, {"99999999999999999999"});
  // An empty range accepts nothing.
  expect_invalid(R"j({"type":"integer","minimum":5,"maximum":4})j", "accepts no JSON value");
}

TEST(JsonSchema, NumberBounds) {
  expect_language(R"j({"type":"number","minimum":-1.5,"exclusiveMaximum":2.25})j",
                  {"-1.5", "-1.499", "0", "2", "2.2499", "0.0", "-1"},
                  {"-1.51", "2.25", "2.3", "3", "-0", "1e0"});
  expect_language(R"j({"type":"number","exclusiveMinimum":0,"maximum":1})j", {"0.5", "1", "1.000", "0.0001"},
                  {"0", "0.0", "1.0001", "-0.5"});
  expect_language(R"j({"type":"number","minimum":0.1,"maximum":0.1})j", {"0.1", "0.10"},
                  {"0.09", "0.11", "0"});
}

TEST(JsonSchema, NumbersStayWithinBinary64Range) {
  // At most 195 integer digits and a two-digit exponent: every number parses as a finite double.
  const std::string digits195 = "1" + std::string(194, '0');
  expect_language(R"j({"type":"number"})j", {"1e99", "-9.5E-99", digits195, digits195 + ".5e99"},
                  {"1e100", "1e-100", digits195 + "0"});
  expect_language(R"j({"type":"integer"})j", {digits195}, {digits195 + "0"});
  // One-sided ranges: magnitudes longer than the bound's, with up to 195 more digits (at most 294).
  const std::string digits300 = "1" + std::string(299, '0');
  expect_language(R"j({"type":"integer","minimum":-5})j", {"-5", "0", "7", "123", digits195},
                  {"-6", "-0", digits300});
  expect_language(R"j({"type":"number","maximum":-100.5})j", {"-100.5", "-101", "-" + digits195 + ".25"},
                  {"-100", "0"});
  EXPECT_NO_THROW(compile(R"j({"type":"integer","minimum":1e150})j"));
}

// ---- Objects ----

TEST(JsonSchema, PropertiesInDeclarationOrder) {
  const std::string schema =
      R"j({"type":"object","properties":{"z":{"type":"integer"},"a":{"type":"string"},"m":{"type":"boolean"}},
          "required":["a"],"additionalProperties":false})j";
  expect_language(
      schema,
      {R"j({"a":"x"})j", R"j({"z":1,"a":"x"})j", R"j({"a":"x","m":true})j", R"j({"z":1,"a":"x","m":false})j"},
      {R"j({})j", R"j({"a":"x","z":1})j", R"j({"z":1})j", R"j({"a":"x","a":"y"})j", R"j({"a":"x","q":1})j",
       R"j({"a":1})j", R"j({,"a":"x"})j", R"j({"a":"x",})j"});
  // nlohmann::json keeps members sorted: that overload declares them in name order.
  const auto sorted = parse_grammar(json_schema_to_grammar(nlohmann::json::parse(schema)));
  EXPECT_TRUE(complete(sorted, R"j({"a":"x","m":true,"z":1})j"));
  EXPECT_FALSE(complete(sorted, R"j({"z":1,"a":"x"})j"));
}

TEST(JsonSchema, AdditionalProperties) {
  // Absent next to `properties`: no other member (documented subset).
  expect_language(R"j({"type":"object","properties":{"a":{"type":"integer"}}})j", {R"j({})j", R"j({"a":1})j"},
                  {R"j({"b":1})j"});
  // false.
  expect_language(R"j({"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false})j",
                  {R"j({"a":1})j"}, {R"j({"a":1,"b":2})j"});
  // true: any value under any other name, after the declared members; never a declared name again.
  expect_language(
      R"j({"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":true})j",
      {R"j({"a":1,"b":[1,{"c":null}]})j", R"j({"b":"x"})j", R"j({"ab":1,"":2,"a\"":3})j", R"j({})j"},
      {R"j({"a":1,"a":2})j", R"j({"b":1,"a":1})j", R"j({"a":"x"})j"});
  // A schema.
  expect_language(R"j({"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],
                      "additionalProperties":{"type":"boolean"}})j",
                  {R"j({"id":1})j", R"j({"id":1,"x":true,"y":false})j", R"j({"id":1, "i":true})j"},
                  {R"j({"id":1,"x":1})j", R"j({"id":1,"id":true})j", R"j({"x":true})j"});
  // Without properties.
  expect_language(R"j({"type":"object","additionalProperties":{"type":"integer"}})j",
                  {R"j({})j", R"j({"a":1,"b":2})j", R"j({"\u00e9":3})j"}, {R"j({"a":"x"})j"});
  expect_language(R"j({"type":"object","additionalProperties":false})j", {R"j({})j"}, {R"j({"a":1})j"});
  expect_language(R"j({"type":"object"})j", {R"j({})j", R"j({"a":[1,{"b":null}],"c":"d"})j"},
                  {R"j([])j", R"j({"a"})j"});
}

TEST(JsonSchema, RequiredNamesOutsideProperties) {
  expect_language(R"j({"type":"object","required":["a","b"]})j", {R"j({"a":1,"b":[2]})j"},
                  {R"j({"a":1})j", R"j({"b":1,"a":1})j"});
  expect_language(R"j({"type":"object","properties":{"a":{"type":"integer"}},"required":["a","b"],
                      "additionalProperties":{"type":"string"}})j",
                  {R"j({"a":1,"b":"x"})j", R"j({"a":1,"b":"x","c":"y"})j"},
                  {R"j({"a":1})j", R"j({"a":1,"b":2})j"});
  expect_invalid(R"j({"type":"object","properties":{"a":{}},"required":["b"],"additionalProperties":false})j",
                 "accepts no JSON value");
}

TEST(JsonSchema, FalsePropertySchemas) {
  expect_language(R"j({"type":"object","properties":{"a":false,"b":{"type":"integer"}},"required":["b"]})j",
                  {R"j({"b":1})j"}, {R"j({"a":1,"b":1})j"});
  expect_invalid(R"j({"type":"object","properties":{"a":false},"required":["a"]})j", "accepts no JSON value");
}

TEST(JsonSchema, PropertyNamesNeedingEscapes) {
  expect_language(R"j({"type":"object","properties":{"a\"b":{"type":"integer"},"c\\d":{"type":"integer"},
                      "\u00e9":{"type":"integer"},"\n":{"type":"integer"}},"additionalProperties":false})j",
                  {"{\"a\\\"b\":1,\"c\\\\d\":2,\"\xC3\xA9\":3,\"\\n\":4}", "{\"\xC3\xA9\":3}"},
                  // Declared names are written in one spelling: \u00e9 for the raw character is not it.
                  {R"j({"a"b":1})j", R"j({"\u00e9":3})j"});
}

// ---- Arrays ----

TEST(JsonSchema, Items) {
  expect_language(R"j({"type":"array","items":{"type":"integer"}})j", {"[]", "[1]", "[1,2,3]", "[1, 2]"},
                  {"[1,]", "[\"a\"]", "[1 2]", "[ ]"});
  expect_language(R"j({"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":3})j",
                  {"[1,2]", "[1,2,3]"}, {"[]", "[1]", "[1,2,3,4]"});
  expect_language(R"j({"type":"array","maxItems":0})j", {"[]"}, {"[1]"});
  expect_language(R"j({"type":"array","items":false})j", {"[]"}, {"[1]"});
  expect_language(R"j({"type":"array"})j", {"[]", "[1,\"a\",[null]]"}, {"{}"});
  const auto g = compile(R"j({"type":"array","items":{"const":0},"minItems":1200,"maxItems":1300})j");
  auto list = [](int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += i ? ",0" : "0";
    return s + "]";
  };
  EXPECT_TRUE(complete(g, list(1200)));
  EXPECT_TRUE(complete(g, list(1300)));
  EXPECT_FALSE(complete(g, list(1199)));
  EXPECT_FALSE(complete(g, list(1301)));
}

TEST(JsonSchema, PrefixItems) {
  expect_language(R"j({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]})j",
                  {"[]", "[\"a\"]", "[\"a\",1]", "[\"a\",1,null,{}]"}, {"[1]", "[\"a\",\"b\"]"});
  expect_language(R"j({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false})j",
                  {"[]", "[\"a\"]", "[\"a\",1]"}, {"[\"a\",1,2]"});
  expect_language(
      R"j({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":{"type":"boolean"},
                      "minItems":2,"maxItems":3})j",
      {"[\"a\",1]", "[\"a\",1,true]"}, {"[\"a\"]", "[\"a\",1,true,false]", "[\"a\",1,2]"});
  expect_language(R"j({"type":"array","prefixItems":[{"type":"string"},{"type":"integer"},{"type":"null"}],
                      "maxItems":2})j",
                  {"[\"a\",1]"}, {"[\"a\",1,null]"});
  expect_invalid(R"j({"type":"array","prefixItems":[{"type":"string"}],"items":false,"minItems":2})j",
                 "accepts no JSON value");
}

// ---- enum and const ----

TEST(JsonSchema, EnumAndConst) {
  expect_language(R"j({"enum":["red",1,null,true,{"a":[1,2]},[]]})j",
                  {R"j("red")j", "1", "null", "true", R"j({"a":[1,2]})j", "[]"},
                  {R"j("blue")j", "2", "false", "{}"});
  expect_language(R"j({"const":"v1"})j", {R"j("v1")j"}, {R"j("v2")j"});
  expect_language(R"j({"const":{"k":"v","n":1.5}})j", {R"j({"k":"v","n":1.5})j"}, {R"j({"n":1.5,"k":"v"})j"});
  // Filtered by the rest of the schema.
  expect_language(R"j({"type":"string","enum":["a","bb","ccc",1]})j", {R"j("a")j", R"j("bb")j", R"j("ccc")j"},
                  {"1"});
  expect_language(R"j({"type":"string","maxLength":2,"enum":["a","bb","ccc"]})j", {R"j("a")j", R"j("bb")j"},
                  {R"j("ccc")j"});
  expect_language(R"j({"type":"string","pattern":"^b","enum":["a","bb"]})j", {R"j("bb")j"}, {R"j("a")j"});
  expect_language(R"j({"type":"integer","minimum":2,"enum":[1,2,3,2.5]})j", {"2", "3"}, {"1", "2.5"});
  expect_language(R"j({"type":"integer","enum":[1.0, 2]})j", {"1", "2"}, {"1.0"});
  expect_language(R"j({"type":"string","nullable":true,"enum":["a",null]})j", {R"j("a")j", "null"}, {});
  expect_language(R"j({"enum":["a","b"],"const":"b"})j", {R"j("b")j"}, {R"j("a")j"});
  expect_language(R"j({"anyOf":[{"type":"string"},{"type":"integer","maximum":5}],"enum":["x",3,9]})j",
                  {R"j("x")j", "3"}, {"9"});
  expect_language(R"j({"oneOf":[{"type":"integer"},{"type":"number","minimum":2}],"enum":[1,3,2.5]})j",
                  {"1", "2.5"}, {"3"});
  expect_language(R"j({"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","enum":["a",1]})j", {R"j("a")j"},
                  {"1"});
  expect_language(R"j({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],
                      "enum":[{"a":1},{"b":2},{"a":"x"}]})j",
                  {R"j({"a":1})j"}, {R"j({"b":2})j", R"j({"a":"x"})j"});
  expect_language(R"j({"type":"array","items":{"type":"integer"},"maxItems":2,"enum":[[1],[1,2,3],["a"]]})j",
                  {"[1]"}, {"[1,2,3]", "[\"a\"]"});
  // One spelling per value: raw where JSON allows it.
  expect_language(R"j({"type":"string","enum":["a\"\\\n\u00e9"]})j", {"\"a\\\"\\\\\\n\xC3\xA9\""},
                  {R"j("a\"\\\n\u00e9")j"});
  expect_language(R"j({"enum":[{"a":[1,2],"b":null}]})j",
                  {R"j({"a":[1,2],"b":null})j", R"j({"a": [1, 2], "b": null})j"},
                  {R"j({"a" :[1,2],"b":null})j", R"j({"a":[1,2] ,"b":null})j"});
  expect_invalid(R"j({"type":"integer","enum":["a"]})j", "accepts no JSON value");
  expect_invalid(R"j({"enum":[]})j", "accepts no JSON value");
}

// ---- Applicators ----

TEST(JsonSchema, AnyOfOneOfAllOf) {
  expect_language(R"j({"anyOf":[{"type":"string","maxLength":2},{"type":"integer"},{"type":"null"}]})j",
                  {R"j("ab")j", "3", "null"}, {R"j("abc")j", "true"});
  // oneOf compiles as anyOf (documented).
  expect_language(R"j({"oneOf":[{"type":"integer"},{"type":"number"}]})j", {"3", "3.5"}, {"\"3\""});
  expect_language(R"j({"allOf":[{"type":"integer","maximum":3}]})j", {"3"}, {"4"});
  expect_language(R"j({"anyOf":[false,{"type":"null"}]})j", {"null"}, {"1"});
  expect_unsupported(R"j({"allOf":[{"type":"integer"},{"minimum":0}]})j", "allOf", "the schema root");
  expect_unsupported(R"j({"type":"object","anyOf":[{"required":["a"]}]})j", "anyOf", "the schema root");
  expect_unsupported(R"j({"anyOf":[{"type":"integer"}],"oneOf":[{"type":"integer"}]})j", "oneOf",
                     "the schema root");
  expect_unsupported(R"j({"$ref":"#/$defs/a","type":"object","$defs":{"a":{}}})j", "type", "the schema root");
}

TEST(JsonSchema, Nullable) {
  expect_language(R"j({"type":"string","nullable":true,"maxLength":2})j", {R"j("ab")j", "null"},
                  {R"j("abc")j", "1"});
  expect_language(R"j({"type":["integer","null"],"minimum":1})j", {"1", "null"}, {"0"});
  expect_language(R"j({"type":"string","nullable":false})j", {R"j("a")j"}, {"null"});
}

TEST(JsonSchema, Refs) {
  expect_language(R"j({"$defs":{"pos":{"type":"integer","minimum":1}},"type":"object",
                      "properties":{"a":{"$ref":"#/$defs/pos"},"b":{"$ref":"#/$defs/pos"}},"additionalProperties":false})j",
                  {R"j({"a":1,"b":2})j"}, {R"j({"a":0})j"});
  expect_language(R"j({"definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s"})j", {R"j("x")j"},
                  {"1"});
  // Pointer escapes (~1 for '/', ~0 for '~') and percent-encoding.
  expect_language(R"j({"$defs":{"a/b":{"const":1},"c~d":{"const":2},"e f":{"const":3}},
                      "anyOf":[{"$ref":"#/$defs/a~1b"},{"$ref":"#/$defs/c~0d"},{"$ref":"#/$defs/e%20f"}]})j",
                  {"1", "2", "3"}, {"4"});
  // A reference into an array (prefixItems / anyOf members are schemas too).
  expect_language(R"j({"anyOf":[{"type":"null"},{"type":"array","items":{"$ref":"#/anyOf/0"}}]})j",
                  {"null", "[null,null]"}, {"[1]"});
}

TEST(JsonSchema, RecursiveRefs) {
  const std::string tree =
      R"j({"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#"}}},
          "required":["v"],"additionalProperties":false})j";
  expect_language(tree, {R"j({"v":1})j", R"j({"v":1,"kids":[{"v":2,"kids":[{"v":3}]},{"v":4,"kids":[]}]})j"},
                  {R"j({"v":1,"kids":[{}]})j", R"j({"kids":[]})j"});
  const std::string list =
      R"j({"$defs":{"node":{"type":"object","properties":{"next":{"anyOf":[{"$ref":"#/$defs/node"},{"type":"null"}]}},
          "required":["next"],"additionalProperties":false}},"$ref":"#/$defs/node"})j";
  expect_language(list, {R"j({"next":null})j", R"j({"next":{"next":{"next":null}}})j"}, {R"j({"next":{}})j"});
  // Recursion that never ends (required all the way down) accepts no finite document.
  expect_invalid(R"j({"type":"object","properties":{"x":{"$ref":"#"}},"required":["x"]})j",
                 "accepts no JSON value");
  // Recursion that consumes nothing: left recursion.
  expect_invalid(R"j({"$defs":{"a":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}},"$ref":"#/$defs/a"})j",
                 "$ref without an enclosing object or array");
  expect_invalid(
      R"j({"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"},{"type":"integer"}]}},
                     "$ref":"#/$defs/a"})j",
      "$ref without an enclosing object or array");
}

TEST(JsonSchema, AnnotationsAreIgnored) {
  expect_language(R"j({"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/s",
                      "$comment":"c","title":"T","description":"D","default":1,"examples":[1],"deprecated":false,
                      "readOnly":true,"writeOnly":false,"x-vendor":{"anything":[]},"type":"integer","maximum":3,
                      "uniqueItems":false,"minProperties":0})j",
                  {"1", "3"}, {"4", "\"1\""});
}

// ---- Refusals ----

TEST(JsonSchema, RefusesKeywordsItCannotEnforce) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"j({"type":"integer","multipleOf":2})j", "multipleOf"},
      {R"j({"type":"array","uniqueItems":true})j", "uniqueItems"},
      {R"j({"type":"object","patternProperties":{"^x":{}}})j", "patternProperties"},
      {R"j({"type":"object","propertyNames":{"maxLength":3}})j", "propertyNames"},
      {R"j({"type":"object","dependentRequired":{"a":["b"]}})j", "dependentRequired"},
      {R"j({"type":"object","dependentSchemas":{"a":{}}})j", "dependentSchemas"},
      {R"j({"type":"object","dependencies":{"a":["b"]}})j", "dependencies"},
      {R"j({"if":{"type":"string"},"then":{"maxLength":2}})j", "if"},
      {R"j({"then":{"maxLength":2}})j", "then"},
      {R"j({"else":{"maxLength":2}})j", "else"},
      {R"j({"not":{"type":"string"}})j", "not"},
      {R"j({"type":"object","minProperties":1})j", "minProperties"},
      {R"j({"type":"object","maxProperties":3})j", "maxProperties"},
      {R"j({"type":"array","contains":{"type":"integer"}})j", "contains"},
      {R"j({"type":"array","minContains":1})j", "minContains"},
      {R"j({"type":"array","maxContains":1})j", "maxContains"},
      {R"j({"type":"object","unevaluatedProperties":false})j", "unevaluatedProperties"},
      {R"j({"type":"array","unevaluatedItems":false})j", "unevaluatedItems"},
      {R"j({"type":"array","additionalItems":false})j", "additionalItems"},
      {R"j({"$dynamicRef":"#node"})j", "$dynamicRef"},
      {R"j({"$dynamicAnchor":"node"})j", "$dynamicAnchor"},
      {R"j({"$recursiveRef":"#"})j", "$recursiveRef"},
      {R"j({"type":"string","format":"uri"})j", "format"},
      {R"j({"type":"string","format":"hostname"})j", "format"},
      {R"j({"type":"string","pattern":"(?=a)"})j", "pattern"},
      {R"j({"type":"string","pattern":"(?!a)"})j", "pattern"},
      {R"j({"type":"string","pattern":"(?<=a)b"})j", "pattern"},
      {R"j({"type":"string","pattern":"(a)\\1"})j", "pattern"},
      {R"j({"type":"string","pattern":"(?<n>a)\\k<n>"})j", "pattern"},
      {R"j({"type":"string","pattern":"\\bword"})j", "pattern"},
      {R"j({"type":"string","pattern":"\\p{L}"})j", "pattern"},
      {R"j({"type":"string","pattern":"a^b"})j", "pattern"},
      {R"j({"type":"string","pattern":"a$b"})j", "pattern"},
      {R"j({"type":"string","pattern":"(^a)"})j", "pattern"},
      {R"j({"type":"string","pattern":"a{1001}"})j", "pattern"},
      {R"j({"type":"string","pattern":"(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))"})j",
       "pattern"},
      {R"j({"type":"string","pattern":"\\ud800"})j", "pattern"},
      {R"j({"$ref":"other.json#/a"})j", "$ref"},
      {R"j({"$ref":"https://example.com/schema"})j", "$ref"},
      {R"j({"$ref":"#anchor","$defs":{"a":{"$anchor":"anchor"}}})j", "$ref"},
      {R"j({"type":"array","items":{"$id":"https://example.com/item"}})j", "$id"},
  };
  for (const auto& [schema, keyword] : cases) {
    SCOPED_TRACE(schema);
    const Error e = refusal(schema);
    EXPECT_EQ(e.kind(), ErrorCode::kUnsupportedField) << e.what();
    EXPECT_NE(std::string(e.what()).find("'" + keyword + "'"), std::string::npos) << e.what();
  }
}

TEST(JsonSchema, RefusalNamesTheLocation) {
  expect_unsupported(R"j({"type":"object","properties":{"age":{"type":"integer","multipleOf":2}}})j",
                     "multipleOf", "at /properties/age");
  expect_unsupported(R"j({"type":"array","items":{"not":{}}})j", "not", "at /items");
  expect_unsupported(R"j({"type":"array","prefixItems":[{},{"not":{}}]})j", "not", "at /prefixItems/1");
  expect_unsupported(R"j({"anyOf":[{},{"type":"string","format":"uri"}]})j", "format", "at /anyOf/1");
  expect_unsupported(R"j({"$defs":{"a/b":{"not":{}}},"$ref":"#/$defs/a~1b"})j", "not", "at /$defs/a~1b");
  expect_unsupported(R"j({"type":"object","additionalProperties":{"if":{}}})j", "if",
                     "at /additionalProperties");
  // A keyword that cannot apply (no string branch) is not refused: format on an integer.
  EXPECT_NO_THROW(json_schema_to_grammar(ordered_json::parse(R"j({"type":"integer","format":"uri"})j")));
}

TEST(JsonSchema, MessagesNeverQuoteSchemaValues) {
  const std::string secret = "SECRETVALUE";
  const std::vector<std::string> schemas = {
      R"j({"type":"string","pattern":"SECRETVALUE(?=x)"})j",
      R"j({"type":"string","pattern":"SECRETVALUE("})j",
      R"j({"type":"string","format":"SECRETVALUE"})j",
      R"j({"$ref":"#/$defs/SECRETVALUE"})j",
      R"j({"$ref":"https://SECRETVALUE.example/"})j",
      R"j({"type":"SECRETVALUE"})j",
      R"j({"type":"integer","enum":["SECRETVALUE"]})j",
      R"j({"const":"SECRETVALUE","type":"integer"})j",
  };
  for (const std::string& schema : schemas) {
    const Error e = refusal(schema);
    EXPECT_EQ(std::string(e.what()).find(secret), std::string::npos) << e.what();
  }
}

TEST(JsonSchema, PointerNamesArePrintableAndCut) {
  const std::string long_name(100, 'n');
  const Error e = refusal(R"j({"type":"object","properties":{")j" + long_name + R"j(":{"not":{}}}})j");
  const std::string what = e.what();
  EXPECT_EQ(what.find(long_name), std::string::npos) << what;
  EXPECT_NE(what.find("/properties/" + std::string(64, 'n') + "..."), std::string::npos) << what;
  const Error f = refusal(R"j({"type":"object","properties":{"\u00e9\n\\":{"not":{}}}})j");
  EXPECT_NE(std::string(f.what()).find("/properties/\\xc3\\xa9\\x0a\\x5c"), std::string::npos) << f.what();
  for (unsigned char c : std::string(f.what())) EXPECT_TRUE(c >= 0x20 && c < 0x7F);
}

TEST(JsonSchema, RefusesMalformedSchemas) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"j("string")j", "a schema must be an object or a boolean"},
      {R"j(3)j", "a schema must be an object or a boolean"},
      {R"j({"type":"text"})j", "unknown type"},
      {R"j({"type":7})j", "'type'"},
      {R"j({"type":[]})j", "'type'"},
      {R"j({"type":["string","string"]})j", "'type'"},
      {R"j({"type":"string","minLength":-1})j", "'minLength'"},
      {R"j({"type":"string","maxLength":1.5})j", "'maxLength'"},
      {R"j({"type":"string","minLength":3,"maxLength":2})j", "'minLength' is above 'maxLength'"},
      {R"j({"type":"array","minItems":3,"maxItems":2})j", "'minItems' is above 'maxItems'"},
      {R"j({"type":"string","pattern":7})j", "'pattern'"},
      {R"j({"type":"string","pattern":"(a"})j", "'pattern' is not a valid regular expression"},
      {R"j({"type":"string","pattern":"a)"})j", "'pattern' is not a valid regular expression"},
      {R"j({"type":"string","pattern":"*a"})j", "'pattern' is not a valid regular expression"},
      {R"j({"type":"string","pattern":"[b-a]"})j", "'pattern' is not a valid regular expression"},
      {R"j({"type":"string","pattern":"a{2,1}"})j", "'pattern' is not a valid regular expression"},
      {R"j({"type":"string","pattern":"\\q"})j", "'pattern' is not a valid regular expression"},
      {R"j({"type":"number","minimum":"0"})j", "'minimum'"},
      {R"j({"type":"number","exclusiveMinimum":true})j", "'exclusiveMinimum'"},
      {R"j({"type":"array","items":[{"type":"string"}]})j", "'items'"},
      {R"j({"type":"array","prefixItems":[]})j", "'prefixItems'"},
      {R"j({"type":"object","properties":[]})j", "'properties'"},
      {R"j({"type":"object","properties":{"a":3}})j", "a schema must be an object or a boolean"},
      {R"j({"type":"object","required":"a"})j", "'required'"},
      {R"j({"type":"object","additionalProperties":"no"})j", "'additionalProperties'"},
      {R"j({"enum":"a"})j", "'enum'"},
      {R"j({"anyOf":[]})j", "'anyOf'"},
      {R"j({"oneOf":{}})j", "'oneOf'"},
      {R"j({"allOf":[3]})j", "'allOf'"},
      {R"j({"$ref":3})j", "'$ref'"},
      {R"j({"$ref":"#/$defs/missing"})j", "does not resolve"},
      {R"j({"$ref":"#/$defs/a/0","$defs":{"a":{"enum":[1]}}})j", "does not resolve"},
      {R"j({"$ref":"#/$defs/a/enum","$defs":{"a":{"enum":[1]}}})j", "does not resolve to a schema"},
      {R"j({"$ref":"#/x~2"})j", "not a valid JSON pointer"},
      {R"j({"$ref":"#/%zz"})j", "percent-escape"},
      {R"j({"$defs":[]})j", "'$defs'"},
      {R"j({"nullable":"yes","type":"string"})j", "'nullable'"},
      {R"j(false)j", "accepts no JSON value"},
  };
  for (const auto& [schema, fragment] : cases) {
    SCOPED_TRACE(schema);
    expect_invalid(schema, fragment);
  }
}

TEST(JsonSchema, Limits) {
  // Subschemas nested more than 64 deep.
  std::string deep = R"j({"type":"integer"})j";
  for (int i = 0; i < 70; ++i) deep = R"j({"type":"array","items":)j" + deep + "}";
  expect_invalid(deep, "nest more than 64");
  std::string ok = R"j({"type":"integer"})j";
  for (int i = 0; i < 60; ++i) ok = R"j({"type":"array","items":)j" + ok + "}";
  EXPECT_NO_THROW(compile(ok));
  // A document nested beyond 256 levels (inside an annotation).
  std::string value = "1";
  for (int i = 0; i < 300; ++i) value = "[" + value + "]";
  expect_invalid(R"j({"default":)j" + value + "}", "nests more than 256");
  // A schema whose grammar text would pass 256 KiB: refused, here by the 64 KiB cap on the schema
  // that comes first. (two-byte characters: the text grows faster than the grammar's element count)
  ordered_json big = {{"enum", ordered_json::array()}};
  std::string wide;
  for (int i = 0; i < 100; ++i) wide += "\xC3\xA9";
  for (int i = 0; i < 1500; ++i) big["enum"].push_back(wide + std::to_string(i));
  try {
    json_schema_to_grammar(big);
    ADD_FAILURE() << "compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorCode::kInvalidRequest);
    EXPECT_NE(std::string(e.what()).find(" KiB"), std::string::npos) << e.what();
  }
  // More rules than parse_grammar allows.
  expect_invalid(R"j({"type":"string","pattern":"^[a-z]+(-[a-z]+)*$","maxLength":4000})j", "4096 rules");
}

TEST(JsonSchema, OutputIsDeterministicAndParses) {
  const std::string schema =
      R"j({"type":"object","properties":{"when":{"type":"string","format":"date-time"},"tags":{"type":"array",
          "items":{"enum":["a","b"]},"maxItems":3},"n":{"type":"integer","minimum":-3,"maximum":300}},
          "additionalProperties":{"type":"string","pattern":"^x"}})j";
  const std::string a = json_schema_to_grammar(ordered_json::parse(schema));
  const std::string b = json_schema_to_grammar(ordered_json::parse(schema));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.rfind("root ::= ", 0), 0u) << a;
  EXPECT_NO_THROW(parse_grammar(a));
}

TEST(JsonSchema, JsonObjectGrammar) {
  const auto g = parse_grammar(json_object_grammar());
  for (const char* doc : {R"j({})j", R"j({"a":1})j", R"j({"a": [1, {"b": null}], "c": "\u00e9"})j"}) {
    EXPECT_TRUE(complete(g, doc)) << doc;
  }
  for (const char* doc : {R"j([])j", R"j("a")j", "1", "null", R"j({"a":1,})j", R"j({ })j"}) {
    EXPECT_FALSE(complete(g, doc)) << doc;
  }
}

// ---- The fixture shared with the end-to-end structured output test ----

// Compact JSON (members in document order), with `spaced` one space after ':' and ','.
std::string write(const ordered_json& v, bool spaced) {
  if (v.is_object()) {
    std::string out = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first) out += spaced ? ", " : ",";
      first = false;
      out += ordered_json(it.key()).dump() + (spaced ? ": " : ":") + write(it.value(), spaced);
    }
    return out + "}";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? (spaced ? ", " : ",") : "") + write(v[i], spaced);
    return out + "]";
  }
  return v.dump();
}

TEST(JsonSchema, Fixture) {
  std::ifstream in(std::string(A3S_SOURCE_DIR) + "/tests/data/json_schemas/schemas.json");
  ASSERT_TRUE(in) << "tests/data/json_schemas/schemas.json";
  std::stringstream text;
  text << in.rdbuf();
  const ordered_json fixtures = ordered_json::parse(text.str());
  ASSERT_TRUE(fixtures.is_array());
  EXPECT_GE(fixtures.size(), 35u);
  for (const ordered_json& f : fixtures) {
    const std::string name = f.at("name").get<std::string>();
    SCOPED_TRACE(name);
    std::shared_ptr<const Grammar> g;
    ASSERT_NO_THROW(g = parse_grammar(json_schema_to_grammar(f.at("schema"))));
    EXPECT_FALSE(f.at("valid").empty());
    EXPECT_FALSE(f.at("invalid").empty());
    for (const ordered_json& v : f.at("valid")) {
      EXPECT_TRUE(complete(g, write(v, false))) << write(v, false);
      EXPECT_TRUE(complete(g, write(v, true))) << write(v, true);
    }
    for (const ordered_json& v : f.at("invalid")) {
      EXPECT_FALSE(complete(g, write(v, false))) << write(v, false);
      EXPECT_FALSE(complete(g, write(v, true))) << write(v, true);
    }
  }
}

}  // namespace
}  // namespace a3s::power::grammar::json_schema_test

namespace a3s::power::grammar {
namespace {

TEST(JsonSchemaLimits, LargeEnumsAndLargeSchemasAreRefusedBeforeCompiling) {
  nlohmann::json big_enum = {{"enum", nlohmann::json::array()}};
  for (int i = 0; i < 1025; ++i) big_enum["enum"].push_back(i);
  try {
    json_schema_to_grammar(big_enum);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_request_error");
    EXPECT_NE(std::string(e.what()).find("1024"), std::string::npos) << e.what();
  }
  big_enum["enum"].erase(big_enum["enum"].begin());  // 1024 values: fine
  EXPECT_FALSE(json_schema_to_grammar(big_enum).empty());
  nlohmann::ordered_json wide = {{"type", "object"}, {"properties", nlohmann::ordered_json::object()}};
  for (int i = 0; i < 3000; ++i) wide["properties"]["property_" + std::to_string(i)] = {{"type", "boolean"}};
  try {
    json_schema_to_grammar(wide);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_request_error");
    EXPECT_NE(std::string(e.what()).find("64 KiB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace a3s::power::grammar
