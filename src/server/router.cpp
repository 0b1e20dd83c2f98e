#include "server/router.h"

#include "base/percent_encode.h"

namespace a3s::power::server {

Router::Router() {
  routes_ = {
      {"GET", "/health", false, "/health", RouteId::Health},
      {"GET", "/metrics", false, "/metrics", RouteId::Metrics},
      {"POST", "/v1/chat/completions", false, "/v1/chat/completions", RouteId::ChatCompletions},
      {"POST", "/v1/completions", false, "/v1/completions", RouteId::Completions},
      {"POST", "/v1/embeddings", false, "/v1/embeddings", RouteId::Embeddings},
      {"POST", "/v1/messages", false, "/v1/messages", RouteId::Messages},
      {"POST", "/v1/responses", false, "/v1/responses", RouteId::Responses},
      {"POST", "/v1/messages/count_tokens", false, "/v1/messages/count_tokens", RouteId::CountTokens},
      {"GET", "/v1/models", false, "/v1/models", RouteId::ListModels},
      {"POST", "/v1/models/pull", false, "/v1/models/pull", RouteId::PullModel},
      {"GET", "/v1/attestation", false, "/v1/attestation", RouteId::Attestation},
      {"GET", "/v1/models/", true, "/v1/models/{id}", RouteId::GetModel},
      {"DELETE", "/v1/models/", true, "/v1/models/{id}", RouteId::DeleteModel},
  };
}

std::optional<std::string> percent_decode(const std::string& s) {
  return a3s::power::percent_decode(s, /*reject_nul=*/true);
}

std::optional<std::map<std::string, std::string>> parse_query(const std::string& query) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string part = query.substr(start, end - start);
    start = end + 1;
    if (part.empty()) {
      if (end == query.size()) break;
      continue;
    }
    for (char& c : part) {
      if (c == '+') c = ' ';
    }
    const size_t eq = part.find('=');
    auto name = percent_decode(part.substr(0, eq));
    auto value = percent_decode(eq == std::string::npos ? std::string() : part.substr(eq + 1));
    if (!name || !value) return std::nullopt;
    if (!out.emplace(std::move(*name), std::move(*value)).second) return std::nullopt;
  }
  return out;
}

RouteMatch Router::match(const std::string& method, const std::string& raw_path) const {
  RouteMatch m;
  // Exact routes first (so POST /v1/models/pull is not a model id), then templates.
  for (int pass = 0; pass < 2; ++pass) {
    std::string allow;
    std::string label;
    for (const auto& r : routes_) {
      if (r.is_template != (pass == 1)) continue;
      bool path_ok = r.is_template ? raw_path.size() > r.path.size() && raw_path.starts_with(r.path)
                                   : raw_path == r.path;
      if (!path_ok) continue;
      label = r.label;
      if (r.method == method) {
        m.kind = RouteMatch::Kind::Found;
        m.id = r.id;
        m.route = r.label;
        if (r.is_template) {
          auto decoded = percent_decode(raw_path.substr(r.path.size()));
          if (!decoded) {
            m.kind = RouteMatch::Kind::NotFound;
            m.route = "unmatched";
            return m;
          }
          m.param = *decoded;
        }
        return m;
      }
      if (!allow.empty()) allow += ", ";
      allow += r.method;
    }
    if (!allow.empty()) {
      // A template path also answers other methods only through the template routes.
      if (pass == 0) {
        // An exact path with the wrong method may still be a model id (e.g. GET /v1/models/pull).
        bool template_also = false;
        for (const auto& r : routes_) {
          if (r.is_template && raw_path.size() > r.path.size() && raw_path.starts_with(r.path) &&
              r.method == method) {
            template_also = true;
          }
        }
        if (template_also) continue;
      }
      m.kind = RouteMatch::Kind::MethodNotAllowed;
      m.route = label;
      m.allow = allow;
      return m;
    }
  }
  return m;
}

}  // namespace a3s::power::server
