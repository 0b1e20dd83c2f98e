// An option given with an empty value is an error, never "not given": an unset shell variable must
// not switch a check off.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace a3s::power::verify::cli {

inline const CLI::Validator& non_empty() {
  static const CLI::Validator v(
      [](const std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); },
      "NONEMPTY");
  return v;
}

}  // namespace a3s::power::verify::cli
