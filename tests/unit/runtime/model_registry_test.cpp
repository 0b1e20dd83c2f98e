// The model registry's names: a served name follows the model name rules, and names in messages are
// shown printable, on one line.
#include "runtime/model_registry.h"

#include <gtest/gtest.h>

#include <string>

#include "a3s/power/error.h"
#include "support/temp_dir.h"

namespace a3s::power::runtime {
namespace {

ModelRegistry::Loader no_loader() {
  return [](const std::string&, const std::string&) -> std::shared_ptr<ModelRuntime> { return nullptr; };
}

std::string message_of(const std::function<void()>& f, ErrorCode expected) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(ModelRegistry, ServedNamesWithControlCharactersOrEmptyAreRefused) {
  ModelRegistry reg(no_loader(), nullptr);
  for (const std::string& name : {std::string("a\x1b[2Jb"), std::string("x\ny"), std::string("")}) {
    const std::string msg = message_of([&] { reg.add_path(name, "/m.gguf"); }, codes::kInvalidArgument);
    EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(reg.add_path("story", "/m.gguf"));
  const std::string dup = message_of([&] { reg.add_path("story", "/n.gguf"); }, codes::kInvalidArgument);
  EXPECT_NE(dup.find("configured twice"), std::string::npos) << dup;
}

TEST(ModelRegistry, AStoreNameThatIsMissingIsShownPrintable) {
  testing::TempDir home("a3s-registry");
  ModelRegistry reg(no_loader(), std::make_shared<store::Store>(home.path()));
  const std::string msg = message_of([&] { reg.add_store("m", "x\x1b[2Jy\nz"); }, codes::kModelNotFound);
  EXPECT_EQ(msg.find('\x1b'), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_NE(msg.find("is not in the model store"), std::string::npos) << msg;
}

}  // namespace
}  // namespace a3s::power::runtime
