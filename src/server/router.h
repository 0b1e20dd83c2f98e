// Route table: (method, path) → route. Paths are exact ("/v1/models") or a template with one
// trailing parameter that takes the rest of the path ("/v1/models/{id}", so ids may contain '/').
// Exact routes win over templates. The result names the route template (the metrics label) and
// distinguishes "no such path" (404) from "path exists, method not allowed" (405, with Allow).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace a3s::power::server {

enum class RouteId {
  Health,
  Metrics,
  ChatCompletions,
  Completions,
  Embeddings,
  Messages,
  CountTokens,
  Responses,
  ListModels,
  GetModel,
  DeleteModel,
  PullModel,
  Attestation,
};

struct RouteMatch {
  enum class Kind { Found, NotFound, MethodNotAllowed } kind = Kind::NotFound;
  RouteId id{};
  std::string route = "unmatched";  // template for metrics/logs
  std::string param;                // decoded {id}
  std::string allow;                // for MethodNotAllowed: "GET, DELETE"
};

class Router {
 public:
  Router();
  RouteMatch match(const std::string& method, const std::string& raw_path) const;

 private:
  struct Route {
    std::string method;
    std::string path;  // exact path, or prefix ending in '/' for a template
    bool is_template;
    std::string label;
    RouteId id;
  };
  std::vector<Route> routes_;
};

// Percent-decoding of a path segment; nullopt for malformed escapes or a decoded NUL.
std::optional<std::string> percent_decode(const std::string& s);

// Query string ("a=1&b=x%20y", without '?') → name/value pairs, percent-decoded ('+' is a space).
// nullopt for a malformed escape, a decoded NUL or a name given twice.
std::optional<std::map<std::string, std::string>> parse_query(const std::string& query);

}  // namespace a3s::power::server
