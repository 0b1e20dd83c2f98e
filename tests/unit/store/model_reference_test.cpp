// Model references: a path or a store name, the default served name, and resolution to a file with
// clear errors for a reference that is neither.
#include "store/model_reference.h"

#include <gtest/gtest.h>

#include <string>

#include "a3s/power/error.h"
#include "support/temp_dir.h"

namespace a3s::power::store {
namespace {

const std::string kStories = std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf";

TEST(ModelReference, PathsAreFilesOrSpelledLikePaths) {
  EXPECT_TRUE(is_path_reference(kStories));
  EXPECT_TRUE(is_path_reference("missing.gguf"));
  EXPECT_TRUE(is_path_reference("/abs/model"));
  EXPECT_TRUE(is_path_reference("./model"));
  EXPECT_TRUE(is_path_reference("../model"));
  EXPECT_FALSE(is_path_reference("llama-3.2-1b"));
  EXPECT_FALSE(is_path_reference("org/model"));
}

TEST(ModelReference, TheDefaultNameIsTheFileNameWithoutGguf) {
  EXPECT_EQ(default_model_name("/x/y/stories260K.gguf"), "stories260K");
  EXPECT_EQ(default_model_name("model.bin"), "model.bin");
}

TEST(ModelReference, AFileResolvesToItself) {
  testing::TempDir home("a3s-model-ref");
  EXPECT_EQ(resolve_model_file(kStories, Store(home.path())), kStories);
}

TEST(ModelReference, ANameNotInTheStoreIsModelNotFoundWithTheNameMadePrintable) {
  testing::TempDir home("a3s-model-ref");
  try {
    resolve_model_file("no-such\nmodel", Store(home.path()));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kModelNotFound);
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("no-such?model"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a3s-power pull"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace a3s::power::store
