// Weight residency × where the weight bytes come from: the one place that decides which
// combinations of `weights` (resident / stream / auto), `model_decrypt` and integrity checks work.
//
//   bytes                      resident   stream     auto
//   plaintext file             yes        yes        planner decides (memory budget)
//   decrypted image (file/memory decryption)  yes  refused: the image is already resident  resident
//   stream decryption          refused: it decrypts layer by layer   yes   stream
//   measured plaintext image (integrity checks on a plaintext file)
//                              yes        refused: streamed bytes would be re-read unmeasured
//                                                     planner decides; refused if it must stream
//
// Errors are Error(codes::kInvalidArgument) naming the settings in the reader's spelling
// (base/setting_names.h); for a measured image they start with `subject` (the model's name).
#pragma once

#include <string>

#include "a3s/power/engine.h"

namespace a3s::power::engine {

enum class WeightBytes {
  kPlainFile,        // a plaintext file: mapped, or streamed by plain reads
  kDecryptedImage,   // the decrypted plaintext, resident in memory
  kStreamDecrypted,  // decrypted tensor by tensor from the encrypted file
  kMeasuredImage,    // a plaintext file hashed as one resident image (integrity checks)
};

// The residency to plan with: `requested` narrowed to what `bytes` allows. Throws for a
// combination that cannot work.
WeightsMode residency_for(WeightBytes bytes, WeightsMode requested, const std::string& subject = {});

// After planning (auto may choose stream when the model does not fit the memory budget resident):
// throws when `planned` is not allowed for `bytes`.
void check_planned_residency(WeightBytes bytes, WeightsMode planned, const std::string& subject = {});

}  // namespace a3s::power::engine
