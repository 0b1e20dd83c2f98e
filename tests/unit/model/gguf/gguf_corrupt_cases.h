// Hand-made corrupt GGUF images, one per way a file can be malformed. Used by the rejection tests,
// and written to tests/data/gguf-corrupt/ (the committed corpus, also the fuzzing seed corpus).
#pragma once

#include <string>
#include <vector>

#include "support/gguf_builder.h"

namespace a3s::power::gguf::testing {

struct CorruptCase {
  std::string name;  // file stem in tests/data/gguf-corrupt/
  Bytes bytes;
  std::string code;     // expected Error::code()
  std::string message;  // a substring the one-line message must contain
};

std::vector<CorruptCase> corrupt_cases();

// Small valid images for the fuzzing seed corpus (tests/fuzz/seeds/).
struct ValidSeed {
  std::string name;
  Bytes bytes;
};
std::vector<ValidSeed> valid_seeds();

}  // namespace a3s::power::gguf::testing
