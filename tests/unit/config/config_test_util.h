// Helpers shared by the config tests: capture a config_error message, apply HCL text, temp dirs.
#pragma once

#include "support/temp_dir.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "config/config.h"
#include "config/hcl_parser.h"
#include "config/schema.h"

namespace a3s::power::config::test {

// Runs f; returns the message of the Error it throws (failing the test if it throws anything else,
// a code other than config_error, or nothing).
inline std::string config_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "config_error") << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

// Parses `text` as file "c.hcl" and applies it to a default Config.
inline Config apply_text(const std::string& text, const std::map<std::string, std::string>& env = {
                                                      {"HOME", "/home/tester"}}) {
  Config cfg;
  apply_file(cfg, hcl::parse(text, "c.hcl"), env);
  return cfg;
}

inline std::string apply_error(const std::string& text) {
  return config_error_of([&] { apply_text(text); });
}

inline std::string parse_error(const std::string& text) {
  return config_error_of([&] { hcl::parse(text, "c.hcl"); });
}

// A fresh directory, removed with its contents at scope exit.
using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h

using Env = std::map<std::string, std::string>;

// config::load with `text` as $A3S_POWER_HOME/config.hcl (dir) and `env` as the environment.
inline Config load_text(const TempDir& dir, const std::string& text, Env env = {}) {
  env["A3S_POWER_HOME"] = dir.path();
  dir.write("config.hcl", text);
  return load({}, env);
}

}  // namespace a3s::power::config::test
