// The configuration schema: every key a config file or an A3S_POWER_* variable may set, its type,
// its range and how it lands in Config. Keys of features that are not built yet are type-checked
// and then refused ("'<key>' is not supported yet"), never silently ignored.
//
// Errors: Error(codes::kConfig, "<where>: <message>") where <where> is file:line:col (the value's
// position for type and range errors, the key's position for unknown / unsupported keys) or the
// variable name. Messages never contain the configured values.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/hcl_value.h"

namespace a3s::power::config {

enum class KeyType { String, Int, Number, Bool, StringList, Object };

// Documentation of one key (for docs and tests).
struct KeyInfo {
  std::string name;                  // as written in a config file
  std::string env;                   // A3S_POWER_<UPPER_NAME>, "" if there is no variable
  KeyType type;
  bool supported;                    // false: refused with "not supported yet"
};

// Every attribute key (aliases included), in a stable order.
const std::vector<KeyInfo>& attribute_keys();
// Block types: "model", "api_key" and "model_hash".
const std::vector<std::string>& block_types();

// Applies a parsed config file. `env` supplies HOME for "~" in `home`.
void apply_file(Config& cfg, const hcl::Body& body, const std::map<std::string, std::string>& env);

// Applies every recognised A3S_POWER_* variable with a non-empty value. Other variables are ignored.
void apply_env(Config& cfg, const std::map<std::string, std::string>& env);

// "NAME", "PATH" or "NAME=PATH" → ModelSpec. NAME=PATH splits at the first '=' and sets the served
// name; otherwise the name is left empty (derived later) and the whole text is the reference.
// `where` names the source in errors.
ModelSpec parse_model_spec(const std::string& text, const hcl::SourcePos& where);

// Checked setters shared with command-line overrides (same rules as the keys of the same name).
void set_port(Config& cfg, int64_t port, const hcl::SourcePos& where);
void set_threads(Config& cfg, int64_t threads, const hcl::SourcePos& where);
void set_ctx_size(Config& cfg, int64_t ctx_size, const hcl::SourcePos& where);
void set_host(Config& cfg, const std::string& host, const hcl::SourcePos& where);

}  // namespace a3s::power::config
