// Writes every derived test model (support/gguf_builder.h) to a directory, for making their
// llama.cpp reference outputs (tests/data/reference/README.md):
//   build/bin/write_derived_models OUT_DIR [TESTDATA_DIR]
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "support/gguf_builder.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: write_derived_models OUT_DIR [TESTDATA_DIR]\n");
    return 2;
  }
  const std::string out = argv[1];
  const std::string data = argc > 2 ? argv[2] : A3S_TESTDATA_DIR;
  try {
    std::filesystem::create_directories(out);
    for (const auto& d : a3s::power::testing::derived_models()) {
      const std::string path = out + "/" + d.name + ".gguf";
      a3s::power::testing::write_derived_model(data + "/models/" + d.base + ".gguf", d, path);
      std::printf("%s\n", path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_derived_models: %s\n", e.what());
    return 1;
  }
  return 0;
}
