#include "base/setting_names.h"

#include <atomic>

namespace a3s::power {
namespace {

std::atomic<SettingSpelling> g_spelling{SettingSpelling::kConfig};

struct Names {
  const char* key;    // configuration key
  const char* flag;   // command-line flag
  const char* block;  // the key's block, when the key sits in one ("model_key_source { file = ... }")
};

Names names(Setting s) {
  switch (s) {
    case Setting::kWeights: return {"weights", "--weights", nullptr};
    case Setting::kModelDecrypt: return {"model_decrypt", "--decrypt", nullptr};
    case Setting::kModelKeyFile: return {"file", "--model-key-file", "model_key_source"};
  }
  return {"?", "?", nullptr};
}

std::string config_form(const Names& n, std::string_view value) {
  std::string form = n.key;
  if (!value.empty()) form += " = \"" + std::string(value) + "\"";
  if (n.block != nullptr) form = std::string(n.block) + " { " + form + " }";
  return form;
}

std::string cli_form(const Names& n, std::string_view value) {
  if (value.empty()) return n.flag;
  return std::string(n.flag) + " " + std::string(value);
}

}  // namespace

void set_setting_spelling(SettingSpelling spelling) { g_spelling.store(spelling); }
SettingSpelling setting_spelling() { return g_spelling.load(); }

std::string setting(Setting s, std::string_view value) {
  const Names n = names(s);
  switch (g_spelling.load()) {
    case SettingSpelling::kCli: return cli_form(n, value);
    case SettingSpelling::kConfigAndCli: return config_form(n, value) + " (" + cli_form(n, value) + ")";
    case SettingSpelling::kConfig: break;
  }
  return config_form(n, value);
}

}  // namespace a3s::power
