#include "a3s-power/model_status.h"

#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "base/printable.h"
#include "http_client/server_error.h"

namespace a3s::power::client {
namespace {

std::string string_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

template <typename T>
std::optional<T> number_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return std::nullopt;
  if constexpr (std::is_unsigned_v<T>) {
    if (it->is_number_unsigned()) return it->get<T>();
    if (it->get<int64_t>() < 0) return std::nullopt;
  }
  return it->get<T>();
}

bool bool_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

std::string printable(const std::string& s) { return printable_name(s, s.size()); }

// Display width of UTF-8 text, counting code points (good enough for names and types).
std::size_t width_of(const std::string& s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// The models of a server answer: each object of the answer's array `key` with a non-empty string
// `name_key` becomes a ModelStatus with its name and loaded flag, and `fill` adds the rest. Throws
// ServerError when the answer is not an object holding that array.
template <class Fill>
std::vector<ModelStatus> models_of(const nlohmann::json& answer, const std::string& endpoint, const char* key,
                                   const char* name_key, Fill fill) {
  const std::string unexpected = "unexpected " + endpoint + " answer";
  if (!answer.is_object()) throw ServerError(200, "", unexpected + " (not a JSON object)");
  auto list = answer.find(key);
  if (list == answer.end() || !list->is_array()) {
    throw ServerError(200, "", unexpected + " (no \"" + key + "\" array)");
  }
  std::vector<ModelStatus> out;
  for (const auto& m : *list) {
    if (!m.is_object()) continue;
    ModelStatus s;
    s.name = string_field(m, name_key);
    if (s.name.empty()) continue;
    s.loaded = bool_field(m, "loaded");
    fill(m, s);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::string human_size(uint64_t bytes) {
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000.0 && u < 5) {
    v /= 1000.0;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
  }
  return buf;
}

std::vector<ModelStatus> models_from_health(const nlohmann::json& health) {
  return models_of(health, "/health", "models", "name", [](const nlohmann::json& m, ModelStatus& s) {
    s.architecture = string_field(m, "architecture");
    s.file_type = string_field(m, "file_type");
    s.size_bytes = number_field<uint64_t>(m, "size_bytes");
    s.n_ctx = number_field<int64_t>(m, "n_ctx");
    s.n_ctx_train = number_field<int64_t>(m, "n_ctx_train");
    if (m.contains("kv_cache") && m["kv_cache"].is_object()) {
      s.kv_blocks_in_use = number_field<int64_t>(m["kv_cache"], "blocks_in_use");
      s.kv_blocks_total = number_field<int64_t>(m["kv_cache"], "blocks_total");
    }
  });
}

std::vector<ModelStatus> models_from_list(const nlohmann::json& list) {
  return models_of(list, "/v1/models", "data", "id", [](const nlohmann::json&, ModelStatus&) {});
}

std::vector<ModelStatus> fetch_model_status(HttpClient& client) {
  HttpResponse r = client.get("/health");
  if (r.status >= 200 && r.status < 300) {
    nlohmann::json j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("models") && j["models"].is_array()) return models_from_health(j);
  } else if (r.status != 404) {
    // An error other than "no such route" (e.g. 503 while shutting down) is the answer.
    nlohmann::json j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (auto e = server_error_from_json(j, r.status)) throw std::move(*e);
    if (j.is_object() && j.value("status", "") == "shutting_down") {
      throw ServerError(r.status, "", "the server is shutting down");
    }
    throw ServerError(r.status, "", "the server answered HTTP " + std::to_string(r.status) + " to /health");
  }
  return models_from_list(client.get_json("/v1/models"));
}

std::string format_model_table(const std::vector<ModelStatus>& models) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"NAME", "ARCH", "TYPE", "SIZE", "CONTEXT", "KV BLOCKS", "STATE"});
  for (const auto& m : models) {
    std::string ctx = m.n_ctx ? std::to_string(*m.n_ctx) : "-";
    if (m.n_ctx_train && (!m.n_ctx || *m.n_ctx != *m.n_ctx_train)) {
      ctx += " (" + std::to_string(*m.n_ctx_train) + " trained)";
    }
    std::string kv = "-";
    if (m.kv_blocks_total) {
      kv = (m.kv_blocks_in_use ? std::to_string(*m.kv_blocks_in_use) : "-") + "/" +
           (*m.kv_blocks_total > 0 ? std::to_string(*m.kv_blocks_total) : "∞");
    }
    rows.push_back({printable(m.name), m.architecture.empty() ? "-" : printable(m.architecture),
                    m.file_type.empty() ? "-" : printable(m.file_type),
                    m.size_bytes ? human_size(*m.size_bytes) : "-", ctx, kv, m.loaded ? "loaded" : "not loaded"});
  }
  std::vector<std::size_t> widths(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) widths[i] = std::max(widths[i], width_of(r[i]));
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line.append(widths[i] - width_of(r[i]) + 3, ' ');
    }
    out += line + "\n";
  }
  return out;
}

nlohmann::ordered_json model_status_json(const std::vector<ModelStatus>& models) {
  using oj = nlohmann::ordered_json;
  oj arr = oj::array();
  for (const auto& m : models) {
    oj j;
    j["name"] = m.name;
    j["state"] = m.loaded ? "loaded" : "not loaded";
    j["architecture"] = m.architecture.empty() ? oj() : oj(m.architecture);
    j["file_type"] = m.file_type.empty() ? oj() : oj(m.file_type);
    j["size_bytes"] = m.size_bytes ? oj(*m.size_bytes) : oj();
    j["n_ctx"] = m.n_ctx ? oj(*m.n_ctx) : oj();
    j["n_ctx_train"] = m.n_ctx_train ? oj(*m.n_ctx_train) : oj();
    j["kv_blocks_in_use"] = m.kv_blocks_in_use ? oj(*m.kv_blocks_in_use) : oj();
    j["kv_blocks_total"] = m.kv_blocks_total ? oj(*m.kv_blocks_total) : oj();
    arr.push_back(std::move(j));
  }
  oj out;
  out["models"] = std::move(arr);
  return out;
}

}  // namespace a3s::power::client
