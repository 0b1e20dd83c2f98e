#include "a3s-power-verify/time_arg.h"

#include <cctype>
#include <cstdint>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power::verify::cli {
namespace {

[[noreturn]] void bad() {
  throw Error(codes::kInvalidArgument,
              "--at must be a date (2025-09-01) or an RFC 3339 date-time (2025-09-01T00:00:00Z) between 1970 "
              "and 2255");
}

// Reads exactly `n` digits at `pos`.
int digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) bad();
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) bad();
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

void expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) bad();
  ++pos;
}

bool leap(int y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

}  // namespace

std::time_t parse_time(std::string_view s) {
  size_t pos = 0;
  const int year = digits(s, pos, 4);
  if (year < 1970 || year > 2255) bad();  // the range every verifier represents exactly
  expect(s, pos, '-');
  const int month = digits(s, pos, 2);
  expect(s, pos, '-');
  const int day = digits(s, pos, 2);
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) bad();
  int hour = 0, minute = 0, second = 0, offset_minutes = 0;
  if (pos < s.size()) {
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') bad();
    ++pos;
    hour = digits(s, pos, 2);
    expect(s, pos, ':');
    minute = digits(s, pos, 2);
    expect(s, pos, ':');
    second = digits(s, pos, 2);
    if (hour > 23 || minute > 59 || second > 60) bad();  // 60: a leap second
    if (pos < s.size() && s[pos] == '.') {
      ++pos;
      const size_t start = pos;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) ++pos;
      if (pos == start) bad();
    }
    if (pos >= s.size()) bad();  // RFC 3339 requires the offset
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      const int sign = s[pos] == '-' ? -1 : 1;
      ++pos;
      const int oh = digits(s, pos, 2);
      expect(s, pos, ':');
      const int om = digits(s, pos, 2);
      if (oh > 23 || om > 59) bad();
      offset_minutes = sign * (oh * 60 + om);
    } else {
      bad();
    }
    if (pos != s.size()) bad();
  }
  const int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
                          int64_t(offset_minutes) * 60;
  return static_cast<std::time_t>(seconds);
}

}  // namespace a3s::power::verify::cli
