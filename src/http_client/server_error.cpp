#include "http_client/server_error.h"

namespace a3s::power::client {

std::string one_line(std::string_view text, std::size_t max_bytes) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  for (unsigned char c : text) {
    out += (c < 0x20 || c == 0x7f) ? ' ' : static_cast<char>(c);
  }
  if (out.size() > max_bytes) {
    std::size_t cut = max_bytes;
    // Step back over UTF-8 continuation bytes so the cut lands on a character boundary.
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::optional<ServerError> server_error_from_json(const nlohmann::json& j, int http_status) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find("error");
  if (it == j.end() || it->is_null()) return std::nullopt;
  std::string message, code;
  if (it->is_string()) {
    message = it->get<std::string>();
  } else if (it->is_object()) {
    if (auto m = it->find("message"); m != it->end() && m->is_string()) message = m->get<std::string>();
    if (auto c = it->find("code"); c != it->end() && c->is_string()) code = c->get<std::string>();
    if (message.empty()) {
      if (auto t = it->find("type"); t != it->end() && t->is_string()) message = t->get<std::string>();
    }
  } else {
    return std::nullopt;
  }
  message = one_line(message);
  if (message.empty()) message = code.empty() ? "the server reported an error" : one_line(code);
  return ServerError(http_status, one_line(code, 64), message);
}

ServerError server_error_from_response(int http_status, std::string_view body) {
  nlohmann::json j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (auto e = server_error_from_json(j, http_status)) return std::move(*e);
  return ServerError(http_status, "", "the server answered HTTP " + std::to_string(http_status));
}

}  // namespace a3s::power::client
