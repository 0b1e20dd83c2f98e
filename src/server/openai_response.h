// The HTTP side of the OpenAI response shapes (openai/openai_response.h): a JSON body as a response,
// and Server-Sent Events framing ("data: <json>\n\n", the stream ends with "data: [DONE]\n\n").
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "openai/openai_response.h"
#include "server/api_error.h"  // the server's names for the OpenAI API code (namespace openai)
#include "server/http_message.h"

namespace a3s::power::server {

// A 200 response whose body is `doc`'s JSON text; `doc` (request-derived data) is wiped. The HTTP
// layer wipes the body once it is written.
HttpResponse json_response(nlohmann::json doc);

// One SSE event carrying `payload` (a JSON text on one line).
std::string sse_event(std::string_view payload);
inline std::string sse_event(const nlohmann::json& j) { return sse_event(std::string_view(json_text(j))); }
inline constexpr std::string_view kSseDone = "data: [DONE]\n\n";
// One named event ("event: <payload.type>\ndata: <payload>\n\n"), as the Responses and the Anthropic
// Messages streams frame theirs.
std::string sse_typed_event(const nlohmann::json& payload);

}  // namespace a3s::power::server
