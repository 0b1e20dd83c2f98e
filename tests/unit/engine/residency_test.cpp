// The residency table of engine/residency.h, every cell: what each source of weight bytes allows
// for resident, stream and auto, and the errors naming the settings.
#include <gtest/gtest.h>

#include <string>

#include "a3s/power/error.h"
#include "engine/residency.h"

namespace a3s::power::engine {
namespace {

std::string refusal(WeightBytes bytes, WeightsMode mode) {
  try {
    residency_for(bytes, mode, "model 'm'");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kInvalidArgument);
    return e.what();
  }
  return "";
}

TEST(Residency, EveryCombination) {
  using B = WeightBytes;
  using W = WeightsMode;
  EXPECT_EQ(residency_for(B::kPlainFile, W::Resident), W::Resident);
  EXPECT_EQ(residency_for(B::kPlainFile, W::Stream), W::Stream);
  EXPECT_EQ(residency_for(B::kPlainFile, W::Auto), W::Auto);
  EXPECT_EQ(residency_for(B::kDecryptedImage, W::Resident), W::Resident);
  EXPECT_EQ(residency_for(B::kDecryptedImage, W::Auto), W::Resident);
  EXPECT_NE(refusal(B::kDecryptedImage, W::Stream).find("encrypted model needs"), std::string::npos);
  EXPECT_EQ(residency_for(B::kStreamDecrypted, W::Stream), W::Stream);
  EXPECT_EQ(residency_for(B::kStreamDecrypted, W::Auto), W::Stream);
  EXPECT_NE(refusal(B::kStreamDecrypted, W::Resident).find("layer by layer"), std::string::npos);
  EXPECT_EQ(residency_for(B::kMeasuredImage, W::Resident), W::Resident);
  EXPECT_EQ(residency_for(B::kMeasuredImage, W::Auto), W::Auto);
  EXPECT_EQ(refusal(B::kMeasuredImage, W::Stream).rfind("model 'm': integrity checks need resident weights", 0), 0u);
}

TEST(Residency, AMeasuredImageThePlannerWouldStreamIsRefused) {
  EXPECT_NO_THROW(check_planned_residency(WeightBytes::kMeasuredImage, WeightsMode::Resident, "m"));
  EXPECT_NO_THROW(check_planned_residency(WeightBytes::kPlainFile, WeightsMode::Stream, "m"));
  try {
    check_planned_residency(WeightBytes::kMeasuredImage, WeightsMode::Stream, "model 'm'");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit the memory budget resident"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace a3s::power::engine
