// The one way configuration code reports a problem: Error(codes::kConfig, "<where>: <message>"),
// where <where> is "file:line:col" for file content, the variable name for environment values and
// the flag for command-line values. Messages are one line and never contain configured values
// (they may hold secrets such as API keys); they name keys, types and ranges only.
#pragma once

#include <string>

#include "config/hcl_value.h"

namespace a3s::power::config {

// Throws Error(codes::kConfig, pos.str() + ": " + message).
[[noreturn]] void fail(const hcl::SourcePos& pos, const std::string& message);

}  // namespace a3s::power::config
