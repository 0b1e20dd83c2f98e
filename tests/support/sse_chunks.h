// The JSON chunks and events of a completed SSE response body, for tests of the streaming routes.
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

// The payloads of a stream of named events ("event: <type>\ndata: <json>\n\n", as the Responses
// and Anthropic Messages streams send them), parsed. A GoogleTest failure when the framing is wrong
// or an event's name is not its payload's "type".
inline std::vector<nlohmann::json> sse_typed_events(const std::string& body) {
  std::vector<nlohmann::json> out;
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) {
      ADD_FAILURE() << "an unterminated event:\n" << body;
      break;
    }
    const std::string event = body.substr(pos, end - pos);
    pos = end + 2;
    const size_t nl = event.find('\n');
    if (event.rfind("event: ", 0) != 0 || nl == std::string::npos || event.compare(nl + 1, 6, "data: ") != 0) {
      ADD_FAILURE() << "not an \"event:\" and \"data:\" pair: " << event;
      break;
    }
    out.push_back(nlohmann::json::parse(event.substr(nl + 7)));
    EXPECT_EQ(event.substr(7, nl - 7), out.back().value("type", "")) << event;
  }
  return out;
}

}  // namespace a3s::power::testing
