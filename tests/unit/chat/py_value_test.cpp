// Python value semantics used by the renderers (str, repr, json.dumps, strip, +).
#include "chat/py_value.h"

#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "chat/py_json.h"

namespace a3s::power::chat::py {
namespace {

TEST(PyValue, FloatReprMatchesPython) {
  EXPECT_EQ(float_repr(1.0), "1.0");
  EXPECT_EQ(float_repr(0.5), "0.5");
  EXPECT_EQ(float_repr(1e16), "1e+16");
  EXPECT_EQ(float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(float_repr(0.0001), "0.0001");
  EXPECT_EQ(float_repr(0.00001), "1e-05");
  EXPECT_EQ(float_repr(1.5e300), "1.5e+300");
  EXPECT_EQ(float_repr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(float_repr(-2.5), "-2.5");
  EXPECT_EQ(float_repr(-0.0), "-0.0");
  EXPECT_EQ(float_repr(0.1 + 0.2), "0.30000000000000004");
}

TEST(PyValue, StrAndRepr) {
  EXPECT_EQ(str(Json(nullptr)), "None");
  EXPECT_EQ(str(Json(true)), "True");
  EXPECT_EQ(str(Json(-3)), "-3");
  EXPECT_EQ(str(Json(2.0)), "2.0");
  EXPECT_EQ(str(Json("x")), "x");
  EXPECT_EQ(str(Json::parse(R"({"a":[1,2.5,{"b":null,"t":true}],"c":"it's"})")),
            R"({'a': [1, 2.5, {'b': None, 't': True}], 'c': "it's"})");
  EXPECT_EQ(repr(Json("say \"hi\" it's")), R"('say "hi" it\'s')");
  EXPECT_EQ(repr(Json("\n\t\x01\xc2\xa0\xc3\xa9\xe2\x80\x8b")), R"('\n\t\x01\xa0é\u200b')");
  EXPECT_EQ(str(Ref{}), "");
}

TEST(PyJson, DumpsMatchesPython) {
  const auto v = Json::parse(R"({"b":[1,2.5,{"c":null}],"a":"é\u2028\u007f\u0001\"\\/","e":[],"f":{}})");
  EXPECT_EQ(dumps(v),
            "{\"b\": [1, 2.5, {\"c\": null}], \"a\": \"é\u2028\x7f\\u0001\\\"\\\\/\", \"e\": [], \"f\": {}}");
  EXPECT_EQ(dumps(Json::parse(R"({"a":[],"b":{},"c":[1,{"d":[]}]})"), 4),
            "{\n    \"a\": [],\n    \"b\": {},\n    \"c\": [\n        1,\n        {\n            \"d\": []\n "
            "       }\n"
            "    ]\n}");
  EXPECT_EQ(dumps(Json(1e-7)), "1e-07");
  EXPECT_EQ(dumps(Json(true)), "true");
}

TEST(PyValue, StripUsesPythonWhitespace) {
  EXPECT_EQ(strip("  a b \n\t"), "a b");
  EXPECT_EQ(strip("\xc2\xa0x\xe3\x80\x80"), "x");  // NBSP, ideographic space
  EXPECT_EQ(strip("\x1cx\x1f"), "x");
  EXPECT_EQ(strip("é"), "é");
  EXPECT_EQ(strip(""), "");
  EXPECT_EQ(strip(" \xff "), "\xff");  // invalid UTF-8 is kept
}

TEST(PyValue, ConcatenationErrorsMatchPython) {
  std::string s = "x";
  auto error_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of([&] { append(s, Json(nullptr)); }),
            "TypeError: can only concatenate str (not \"NoneType\") to str");
  EXPECT_EQ(error_of([&] { append(s, Json::object()); }),
            "TypeError: can only concatenate str (not \"dict\") to str");
  EXPECT_EQ(error_of([&] { append(s, attr(Json::object(), "content")); }),
            "UndefinedError: 'dict object' has no attribute 'content'");
  EXPECT_EQ(error_of([&] { left_operand(defined(Json(nullptr))); }),
            "TypeError: unsupported operand type(s) for +: 'NoneType' and 'str'");
  EXPECT_EQ(error_of([&] { left_operand(defined(Json::array())); }),
            "TypeError: can only concatenate list (not \"str\") to list");
  EXPECT_EQ(error_of([&] { attr(attr(Json(nullptr), "a"), "b"); }),
            "UndefinedError: 'None' has no attribute 'a'");
  EXPECT_EQ(error_of([&] { length(Json(1)); }), "TypeError: object of type 'int' has no len()");
  append(s, Json("y"));
  EXPECT_EQ(s, "xy");
}

TEST(PyValue, TruthinessAndEquality) {
  EXPECT_FALSE(truthy(Json("")));
  EXPECT_FALSE(truthy(Json::array()));
  EXPECT_FALSE(truthy(Json(0.0)));
  EXPECT_FALSE(truthy(Ref{}));
  EXPECT_TRUE(truthy(Json("0")));
  EXPECT_TRUE(equal(Json(1), Json(1.0)));
  EXPECT_TRUE(equal(Json(true), Json(1)));
  EXPECT_FALSE(equal(Json("1"), Json(1)));
  EXPECT_TRUE(equal(Json::parse(R"({"a":[1,2]})"), Json::parse(R"({"a":[1.0,2]})")));
  EXPECT_EQ(code_points("🦙ü"), 2u);
}

}  // namespace
}  // namespace a3s::power::chat::py
