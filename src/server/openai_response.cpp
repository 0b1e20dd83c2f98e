#include "server/openai_response.h"

#include "privacy/wipe_text.h"

namespace a3s::power::server {

using nlohmann::json;

HttpResponse json_response(json doc) {
  HttpResponse res;
  res.body = json_text(doc);
  privacy::wipe_json(doc);
  return res;
}

std::string sse_typed_event(const json& payload) {
  std::string s = "event: ";
  s += payload.at("type").get<std::string>();
  s += "\ndata: ";
  s += json_text(payload);
  s += "\n\n";
  return s;
}

std::string sse_event(std::string_view payload) {
  std::string s;
  s.reserve(payload.size() + 8);
  s += "data: ";
  s += payload;
  s += "\n\n";
  return s;
}

}  // namespace a3s::power::server
