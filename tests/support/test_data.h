// Where the tests find the shared test data (../shared/testdata relative to the repository root):
// $A3S_TESTDATA when set (CTest sets it), else the build's A3S_TESTDATA_DIR.
#pragma once

#include <cstdlib>
#include <string>

namespace a3s::power::testing {

inline std::string testdata_dir() {
  const char* e = std::getenv("A3S_TESTDATA");
  return e != nullptr && *e != '\0' ? std::string(e) : std::string(A3S_TESTDATA_DIR);
}
// <testdata>/models/<name>.gguf
inline std::string model_path(const std::string& name) { return testdata_dir() + "/models/" + name + ".gguf"; }
inline std::string stories_model() { return model_path("stories260K"); }

}  // namespace a3s::power::testing
