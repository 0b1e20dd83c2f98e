// Mutated config files never crash the parser or the schema: they load or fail with config_error.
#include <random>

#include <gtest/gtest.h>

#include "config_test_util.h"

namespace a3s::power::config::test {
namespace {

const char* kSeedConfig = R"(# seed
host = "127.0.0.1"
port = 8080
models = ["a=/m/a.gguf", "b"]
model "c" {
  path = "/m/c.gguf"
}
api_keys = ["k1", "k2",]
api_key "alice" { hash = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" }
queue_timeout = 2.5e0
chat_template_fallback = "chatml"
/* block */ log_level = "debug" // end
home = <<-EOT
    /srv/power \u00e9
    EOT
)";

TEST(HclRobustness, RandomMutationsOnlyEverThrowConfigError) {
  std::mt19937 rng(1234);
  const std::string seed = kSeedConfig;
  const std::string alphabet = "{}[]=:,\"\\-#/*<>$%.\n\t ae019_\xC3\xA9\x80";
  int loaded = 0, refused = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0: text[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    try {
      apply_text(text);
      ++loaded;
    } catch (const Error& err) {
      ASSERT_EQ(err.code(), "config_error") << err.what();
      const std::string msg = err.what();
      ASSERT_EQ(msg.find('\n'), std::string::npos) << msg;
      ASSERT_EQ(msg.rfind("c.hcl:", 0), 0u) << msg;
      ++refused;
    }
  }
  EXPECT_EQ(loaded + refused, 3000);
  EXPECT_GT(refused, 0);
  EXPECT_GT(loaded, 0);  // some mutations (e.g. inside comments) still load

}

}  // namespace
}  // namespace a3s::power::config::test
