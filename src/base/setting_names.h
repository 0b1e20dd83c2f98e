// How messages name a setting. The engine and model layers never spell a command-line flag or a
// configuration key themselves: they call setting(), and the application chooses once, at startup,
// the spelling its user wrote: the CLI's flags (`a3s-power generate --weights stream`), or the
// configuration keys (`weights = "stream"`); `a3s-power serve`, whose settings come from the file,
// the environment and flags, shows the key with the flag in parentheses. Library users get the
// configuration keys.
#pragma once

#include <string>
#include <string_view>

namespace a3s::power {

enum class Setting {
  kWeights,       // config weights          CLI --weights
  kModelDecrypt,  // config model_decrypt    CLI --decrypt
  kModelKeyFile,  // config model_key_source { file = ... }   CLI --model-key-file
};

enum class SettingSpelling { kConfig, kCli, kConfigAndCli };

// Process-wide; call before any work starts (the default is kConfig).
void set_setting_spelling(SettingSpelling spelling);
SettingSpelling setting_spelling();

// The setting with `value` as the current spelling writes it: `weights = "stream"`, `--weights stream`,
// or `weights = "stream" (--weights stream)`; with an empty value just the name.
std::string setting(Setting s, std::string_view value = {});

}  // namespace a3s::power
