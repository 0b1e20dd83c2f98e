// canonical_json with JsonValues::kAll (RFC 8785 §3.2.2): numbers as ECMAScript Number.prototype.
// toString writes them, arrays, null; and that the claims set (the default) still refuses them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "a3s/power/error.h"
#include "base/canonical_json.h"

namespace a3s::power {
namespace {

using nlohmann::json;

std::string all_of(const json& v) { return canonical_json(v, JsonValues::kAll); }

void expect_refused_in_all(const json& v) {
  try {
    all_of(v);
    FAIL() << v.dump();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "invalid_argument");
  }
}

TEST(CanonicalJsonValues, IntegersArePlainDecimal) {
  EXPECT_EQ(all_of(json(0)), "0");
  EXPECT_EQ(all_of(json(7)), "7");
  EXPECT_EQ(all_of(json(-7)), "-7");
  EXPECT_EQ(all_of(json(1234567890u)), "1234567890");
  EXPECT_EQ(all_of(json(kMaxCanonicalInteger)), "9007199254740991");
  EXPECT_EQ(all_of(json(-kMaxCanonicalInteger)), "-9007199254740991");
  EXPECT_EQ(all_of(json::parse("1700000000")), "1700000000");
}

TEST(CanonicalJsonValues, IntegersBeyondTheSafeRangeThatAreNotExactlyADoubleAreRefused) {
  expect_refused_in_all(json(kMaxCanonicalInteger + 2));   // 2^53 + 1
  expect_refused_in_all(json(-kMaxCanonicalInteger - 2));
  expect_refused_in_all(json(std::numeric_limits<uint64_t>::max()));
  expect_refused_in_all(json(std::numeric_limits<int64_t>::max()));  // rounds up to 2^63
  expect_refused_in_all(json(uint64_t{1} << 63));  // exactly a double, written 9223372036854776000
  expect_refused_in_all(json::parse(R"({"a":[1,18446744073709551615]})"));
  expect_refused_in_all(json::parse("9007199254740993"));
}

// RFC 8785 numbers are IEEE 754 doubles: an integer beyond 2^53 - 1 is kept when the double nearest
// to it is written with exactly its digits.
TEST(CanonicalJsonValues, IntegersBeyondTheSafeRangeThatAreExactlyADoubleAreThatDouble) {
  EXPECT_EQ(all_of(json(kMaxCanonicalInteger + 1)), "9007199254740992");
  EXPECT_EQ(all_of(json(-kMaxCanonicalInteger - 1)), "-9007199254740992");
  EXPECT_EQ(all_of(json::parse("9223372036854776000")), "9223372036854776000");
  EXPECT_EQ(all_of(json::parse("-9223372036854776000")), "-9223372036854776000");
  EXPECT_EQ(all_of(json::parse("9019148007191480")), all_of(json(9019148007191480.0)));
}

// Canonical output is a fixed point: parsing it and canonicalising again gives the same bytes. A double
// in [2^53, 1e21) is written as plain digits, which parse back as an integer beyond 2^53 - 1; that
// integer must be accepted and written the same way (found by fuzzing).
TEST(CanonicalJsonValues, CanonicalOutputIsAFixedPoint) {
  for (const char* text : {"-9019148007191480.1", "9007199254740992.0", "1e20", "123456789012345680000.5",
                           "1.5e300", "9.223372036854775807e18", "-0.0", "0.000001", "[1e21,-4.35,{\"b\":2,\"a\":null}]"}) {
    SCOPED_TRACE(text);
    const std::string once = all_of(json::parse(text));
    EXPECT_EQ(all_of(json::parse(once)), once);
  }
}

// The number serialisation examples of RFC 8785 Appendix B / ECMAScript.
TEST(CanonicalJsonValues, DoublesAreEcmaScriptNumbers) {
  EXPECT_EQ(all_of(json(0.0)), "0");
  EXPECT_EQ(all_of(json(-0.0)), "0");
  EXPECT_EQ(all_of(json(30.0)), "30");
  EXPECT_EQ(all_of(json(2.5)), "2.5");
  EXPECT_EQ(all_of(json(-1.5)), "-1.5");
  EXPECT_EQ(all_of(json(0.1)), "0.1");
  EXPECT_EQ(all_of(json(1e-6)), "0.000001");
  EXPECT_EQ(all_of(json(1e-7)), "1e-7");
  EXPECT_EQ(all_of(json(1.5e-7)), "1.5e-7");
  EXPECT_EQ(all_of(json(1e21)), "1e+21");
  EXPECT_EQ(all_of(json(1e20)), "100000000000000000000");
  EXPECT_EQ(all_of(json(123456789012345680000.0)), "123456789012345680000");
  EXPECT_EQ(all_of(json(9007199254740992.0)), "9007199254740992");
  EXPECT_EQ(all_of(json(5e-324)), "5e-324");
  EXPECT_EQ(all_of(json(1.7976931348623157e308)), "1.7976931348623157e+308");
  EXPECT_EQ(all_of(json(333333333.33333329)), "333333333.3333333");
  EXPECT_EQ(all_of(json(1e23)), "1e+23");
  EXPECT_EQ(all_of(json(4.35)), "4.35");
  EXPECT_EQ(all_of(json(0.002)), "0.002");
  EXPECT_EQ(all_of(json(86400.0)), "86400");
}

TEST(CanonicalJsonValues, NonFiniteNumbersAreRefused) {
  expect_refused_in_all(json(std::numeric_limits<double>::infinity()));
  expect_refused_in_all(json(std::nan("")));
}

TEST(CanonicalJsonValues, ArraysKeepTheirOrderAndNullIsWritten) {
  EXPECT_EQ(all_of(json::parse(R"([3,"a",null,true,{"b":[],"a":{}}])")), R"([3,"a",null,true,{"a":{},"b":[]}])");
  EXPECT_EQ(all_of(json::array()), "[]");
  EXPECT_EQ(all_of(json(nullptr)), "null");
  EXPECT_EQ(all_of(json::parse(R"({"usage":{"total_tokens":12,"prompt_tokens":5},"id":"x"})")),
            R"({"id":"x","usage":{"prompt_tokens":5,"total_tokens":12}})");
}

TEST(CanonicalJsonValues, ErrorsNameTheArrayPathNeverAValue) {
  json v = {{"choices", json::array({{{"text", "SECRET-CANARY"}}, {{"n", std::numeric_limits<double>::infinity()}}})}};
  try {
    all_of(v);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("SECRET-CANARY"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(".choices[1].n"), std::string::npos) << e.what();
  }
}

TEST(CanonicalJsonValues, TheClaimsSetStillRefusesNumbersArraysAndNull) {
  for (const json& v : {json(1), json(1.5), json(nullptr), json::array()}) {
    EXPECT_THROW(canonical_json(v), Error) << v.dump();
    EXPECT_THROW(canonical_json(v, JsonValues::kClaims), Error) << v.dump();
  }
}

}  // namespace
}  // namespace a3s::power
