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

TEST(ModelRegistry, AnOnDemandLoadFailureKeepsServerPathsInTheLogOnly) {
  power::testing::TempDir home;
  auto store = std::make_shared<store::Store>(home.path());
  store::PullOptions po;
  po.name = "pulled";
  store->pull(std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf", po, nullptr);
  ModelRegistry::Loader failing = [](const std::string&, const std::string& path) -> std::shared_ptr<ModelRuntime> {
    throw Error(codes::kIo, "cannot open model file '" + path + "': No such file or directory");
  };
  ModelRegistry reg(failing, store, /*serve_store=*/false);
  std::string logged;
  reg.set_load_failure_log([&](const std::string& what) { logged = what; });
  reg.add_pulled("pulled");
  const std::string shown = message_of([&] { reg.acquire("pulled"); }, codes::kServiceUnavailable);
  EXPECT_EQ(shown.find(home.path()), std::string::npos) << shown;
  EXPECT_NE(logged.find(home.path()), std::string::npos) << "the operator's log has the whole message";
  // A configured model fails at startup with the whole message (the operator runs serve).
  reg.add_path("configured", "/models/m.gguf");
  const std::string startup = message_of([&] { reg.acquire("configured"); }, codes::kIo);
  EXPECT_NE(startup.find("/models/m.gguf"), std::string::npos) << startup;
}

TEST(ModelRegistry, OnlyAddedModelsAreServedUnlessTheStoreIs) {
  power::testing::TempDir home;
  auto store = std::make_shared<store::Store>(home.path());
  store::PullOptions po;
  po.name = "in-store";
  store->pull(std::string(A3S_TESTDATA_DIR) + "/models/stories260K.gguf", po, nullptr);
  ModelRegistry closed(no_loader(), store, /*serve_store=*/false);
  EXPECT_FALSE(closed.contains("in-store"));
  EXPECT_TRUE(closed.list().empty());
  closed.add_pulled("in-store");
  EXPECT_TRUE(closed.contains("in-store"));
  EXPECT_EQ(closed.unload("in-store"), ModelRegistry::UnloadResult::kUnloaded);
  EXPECT_FALSE(closed.contains("in-store")) << "unloaded and no longer served; the store keeps it";
  EXPECT_TRUE(store->find("in-store").has_value());
  ModelRegistry open(no_loader(), store, /*serve_store=*/true);
  EXPECT_TRUE(open.contains("in-store"));
  open.add_path("configured", "/m.gguf");
  EXPECT_EQ(open.unload("configured"), ModelRegistry::UnloadResult::kConfigured);
  EXPECT_EQ(open.unload("missing"), ModelRegistry::UnloadResult::kNotFound);
}

}  // namespace
}  // namespace a3s::power::runtime
