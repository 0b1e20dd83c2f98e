// The JSON chunks of a completed SSE response body, for tests of the streaming routes.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/http_client.h"

namespace a3s::power::testing {

// The chunks before the final "data: [DONE]" event, parsed. A GoogleTest failure when the framing is
// wrong, the body holds no event, or the last event is not [DONE].
inline std::vector<nlohmann::json> sse_json_chunks(const std::string& body) {
  std::vector<std::string> events;
  std::string problem;
  EXPECT_TRUE(split_sse(body, events, problem)) << problem << "\n" << body;
  EXPECT_FALSE(events.empty());
  if (!events.empty()) {
    EXPECT_EQ(events.back(), "[DONE]");
  }
  std::vector<nlohmann::json> out;
  for (size_t i = 0; i + 1 < events.size(); ++i) out.push_back(nlohmann::json::parse(events[i]));
  return out;
}

}  // namespace a3s::power::testing
