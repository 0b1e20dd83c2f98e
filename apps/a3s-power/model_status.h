// What `a3s-power ps` shows: the models a server serves and whether each is loaded.
//
// Source: GET /health, whose "models" array holds per model {"name", "loaded", "architecture",
// "file_type", "size_bytes", "n_ctx" (null until loaded), "n_ctx_train", "kv_cache", …}. When /health is not
// usable (not JSON, no "models" array) GET /v1/models is used instead, which only gives the ids
// and a "loaded" flag.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "http_client/http_client.h"

namespace a3s::power::client {

struct ModelStatus {
  std::string name;
  bool loaded = false;
  std::string architecture;  // "" when unknown
  std::string file_type;     // e.g. "F32", "Q4_K"; "" when unknown
  std::optional<uint64_t> size_bytes;
  std::optional<int64_t> n_ctx;        // context of a loaded model, tokens
  std::optional<int64_t> n_ctx_train;  // trained context, tokens
  // The model's KV block pool ("kv_cache" in /health): blocks in use (absent under
  // suppress_token_metrics) and in all (0 = no limit).
  std::optional<int64_t> kv_blocks_in_use, kv_blocks_total;
};

// Parse the "models" of a /health answer. Throws ServerError when the shape is wrong.
std::vector<ModelStatus> models_from_health(const nlohmann::json& health);
// Parse a /v1/models answer ({"object": "list", "data": [{"id", "loaded"?}, …]}).
std::vector<ModelStatus> models_from_list(const nlohmann::json& list);

// Asks the server (see above). Throws what HttpClient throws.
std::vector<ModelStatus> fetch_model_status(HttpClient& client);

// A fixed-width table with a header line: NAME, ARCH, TYPE, SIZE, CONTEXT, KV BLOCKS (in use/total,
// "∞" for no limit), STATE; unknown values are "-". Control characters in names are shown as '?'.
std::string format_model_table(const std::vector<ModelStatus>& models);
// {"models": [{"name", "state": "loaded"|"not loaded", "architecture", "file_type",
// "size_bytes", "n_ctx", "n_ctx_train", "kv_blocks_in_use", "kv_blocks_total"}]} in this key order
// (unknown values null).
nlohmann::ordered_json model_status_json(const std::vector<ModelStatus>& models);

// "1.2 MB" style sizes (decimal units, as `ollama ps` prints them).
std::string human_size(uint64_t bytes);

}  // namespace a3s::power::client
