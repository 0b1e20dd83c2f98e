// The error of loading a model file: (code string, message); the test fails when loading succeeds.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "a3s/power/engine.h"
#include "a3s/power/error.h"

namespace a3s::power::testing {

inline std::pair<std::string, std::string> load_error(const std::string& path) {
  try {
    Model::load(path, {.n_threads = 1});
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  ADD_FAILURE() << "load succeeded: " << path;
  return {};
}

}  // namespace a3s::power::testing
