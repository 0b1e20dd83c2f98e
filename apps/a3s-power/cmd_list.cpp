// `a3s-power list [--format table|json]`: the models in the store ($A3S_POWER_HOME).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "store/manifest_json.h"
#include "store/store.h"

namespace a3s::power::cli {
namespace {

std::string human_size(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, kUnits[u]);
  return buf;
}

void run_list(const std::string& format) {
  const auto models = store::Store(store::default_home()).list();
  if (format == "json") {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& m : models) arr.push_back(store::manifest_to_json(m));
    std::cout << arr.dump(2) << std::endl;
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"NAME", "SIZE", "QUANT", "ARCH", "DIGEST", "CREATED"}};
  for (const auto& m : models)
    rows.push_back(
        {m.name, human_size(m.size), m.quantization, m.architecture, m.digest.substr(7, 12), m.created});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    std::cout << line << '\n';
  }
}

}  // namespace

void add_list_command(CLI::App& root) {
  auto format = std::make_shared<std::string>("table");
  CLI::App* sub = root.add_subcommand("list", "List the models in the store");
  sub->add_option("--format", *format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sub->callback([format] { run_list(*format); });
}

}  // namespace a3s::power::cli
