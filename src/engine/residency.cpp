#include "engine/residency.h"

#include "a3s/power/error.h"
#include "base/setting_names.h"

namespace a3s::power::engine {
namespace {

std::string integrity_needs_resident(const std::string& subject) {
  return subject + ": integrity checks need resident weights or encrypted streaming (" +
         setting(Setting::kModelDecrypt, "stream") + ")";
}

}  // namespace

WeightsMode residency_for(WeightBytes bytes, WeightsMode requested, const std::string& subject) {
  switch (bytes) {
    case WeightBytes::kPlainFile:
      return requested;
    case WeightBytes::kDecryptedImage:
      if (requested == WeightsMode::Stream) {
        throw Error(codes::kInvalidArgument,
                    setting(Setting::kWeights, "stream") + " with an encrypted model needs " +
                        setting(Setting::kModelDecrypt, "stream") +
                        " (its plaintext image is resident in the memory and file modes)");
      }
      return WeightsMode::Resident;
    case WeightBytes::kStreamDecrypted:
      if (requested == WeightsMode::Resident) {
        throw Error(codes::kInvalidArgument,
                    setting(Setting::kModelDecrypt, "stream") + " decrypts the weights layer by layer: it needs " +
                        setting(Setting::kWeights, "stream") + " or auto, not resident");
      }
      return WeightsMode::Stream;
    case WeightBytes::kMeasuredImage:
      if (requested == WeightsMode::Stream) throw Error(codes::kInvalidArgument, integrity_needs_resident(subject));
      return requested;
  }
  throw Error(codes::kInternal, "unknown weight bytes");
}

void check_planned_residency(WeightBytes bytes, WeightsMode planned, const std::string& subject) {
  if (bytes == WeightBytes::kMeasuredImage && planned == WeightsMode::Stream) {
    throw Error(codes::kInvalidArgument,
                integrity_needs_resident(subject) + ", and the model does not fit the memory budget resident");
  }
  residency_for(bytes, planned, subject);
}

}  // namespace a3s::power::engine
