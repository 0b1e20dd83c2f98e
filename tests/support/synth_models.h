// Synthetic test models: `a3s-power synth` presets (src/synth) written once per test binary run into
// a temporary directory, so tests of the architectures without a shared model (qwen3, phi3, gemma3)
// and of synthetic tensor types can load them by preset, type and (optionally) n_embd. The files are
// the same bytes `a3s-power synth --preset P --type T [--n-embd N] [--name NAME]` writes with the
// default seed. Needs the a3s_synth library.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "support/temp_dir.h"
#include "synth/file_type.h"
#include "synth/model_shape.h"
#include "synth/synthesize.h"

namespace a3s::power::testing {

// The path of the model; general.name is `name`, or "<preset>-<type>" as synth names it.
inline std::string synth_preset_model(const std::string& preset, const std::string& type, int n_embd = 0,
                                      const std::string& name = {}) {
  static TempDir dir("a3s-synth");
  static std::mutex mu;
  static std::map<std::string, std::string> made;
  const std::string stem = preset + (n_embd > 0 ? "-" + std::to_string(n_embd) : "") + "-" + type +
                           (name.empty() ? "" : "-" + name);
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = made.find(stem); it != made.end()) return it->second;
  synth::SynthOptions o;
  o.shape = synth::find_shape_preset(preset);
  if (n_embd > 0) o.shape.n_embd = n_embd;
  o.type = synth::parse_file_type(type);
  o.name = name.empty() ? preset + "-" + synth::file_type_name(o.type) : name;
  const std::string path = dir.file(stem + ".gguf");
  synth::synthesize(o, path, nullptr);
  made[stem] = path;
  return path;
}

}  // namespace a3s::power::testing
