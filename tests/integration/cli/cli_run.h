// The engine CLI tests run the real `a3s-power` binary with the test process's environment and
// stdin empty (support/process.h does the running).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/gguf_builder.h"
#include "support/process.h"

namespace a3s::power {

inline const std::string kBin = testing::bin_path("a3s-power");
// The smallest reference model (tests/../shared/testdata/models).
inline const std::string kStories = testing::model_path("stories260K");

using CliRun = testing::ProcessResult;
using testing::expect_one_line_error;

inline CliRun run(const std::vector<std::string>& args) { return testing::run_process(kBin, args); }

}  // namespace a3s::power
