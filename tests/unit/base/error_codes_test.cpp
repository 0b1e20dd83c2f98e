// The error code table against its committed snapshot (data/error_codes.txt): no code changes its
// string, HTTP status or exit status by accident, and every ErrorCode has exactly one row.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "a3s/power/error.h"

namespace a3s::power {
namespace {

struct Row {
  std::string name;
  int http = 0;
  int exit = 0;
};

std::vector<Row> snapshot() {
  std::ifstream in(std::string(A3S_SOURCE_DIR) + "/tests/unit/base/data/error_codes.txt");
  EXPECT_TRUE(in.good()) << "snapshot missing";
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Row r;
    ss >> r.name >> r.http >> r.exit;
    EXPECT_FALSE(ss.fail()) << line;
    rows.push_back(r);
  }
  return rows;
}

TEST(ErrorCodes, TheTableEqualsTheCommittedSnapshot) {
  const auto rows = snapshot();
  const auto& table = error_code_table();
  ASSERT_EQ(table.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rows[i].name);
    EXPECT_EQ(table[i].name, rows[i].name);
    EXPECT_EQ(table[i].http_status, rows[i].http);
    EXPECT_EQ(table[i].exit_status, rows[i].exit);
    EXPECT_EQ(static_cast<size_t>(table[i].code), i) << "rows follow the order of ErrorCode";
    EXPECT_EQ(http_status_for(table[i].code), rows[i].http);
    EXPECT_EQ(exit_code_for(table[i].code), rows[i].exit);
    EXPECT_EQ(http_status_for(rows[i].name), rows[i].http);
    EXPECT_EQ(exit_code_for(rows[i].name), rows[i].exit);
    EXPECT_EQ(code_string(table[i].code), rows[i].name);
  }
}

TEST(ErrorCodes, NamesAreUniqueAndAnErrorCarriesItsCode) {
  std::set<std::string> names;
  for (const auto& r : error_code_table()) EXPECT_TRUE(names.insert(r.name).second) << r.name;
  const Error e(codes::kContextLengthExceeded, "too long");
  EXPECT_EQ(e.kind(), ErrorCode::kContextLengthExceeded);
  EXPECT_EQ(e.code(), "context_length_exceeded");
  EXPECT_STREQ(e.what(), "too long");
}

TEST(ErrorCodes, AStringThatNamesNoCodeIsInternal) {
  EXPECT_EQ(http_status_for(std::string("no_such_code")), 500);
  EXPECT_EQ(exit_code_for(std::string("no_such_code")), 1);
  EXPECT_EQ(http_status_for(std::string("")), 500);
}

}  // namespace
}  // namespace a3s::power
