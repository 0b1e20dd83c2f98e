// load_model: the one way the CLI commands (generate, logits, run, bench) and the server load a
// model file, plaintext or encrypted. It opens the file (model/model_file.h: plaintext mapping,
// or decryption into a sealed memfd / locked memory according to `decrypt`) and builds the engine
// Model on it; graph code never knows which.
//
// With `integrity` (model/integrity/integrity.h) the plaintext digest is measured on the bytes that are
// served and checked against the pin / signature before the model is parsed (info().integrity); a
// plaintext model then needs resident weights (--weights stream → Error "invalid_argument" before the
// file is read; auto choosing stream → the same error after). Every decrypt × weights × integrity
// combination is decided in engine/residency.h.
//
// Errors: Model::load's ("io_error", "invalid_model", ...) and open_model_file's
// ("model_key_error", "model_key_mismatch", "decryption_failed", "integrity_error",
// "invalid_argument" for stream mode or decrypt options on a plaintext file).
#pragma once

#include <memory>
#include <string>

#include "a3s/power/engine.h"
#include "model/model_file.h"

namespace a3s::power {

struct LoadOptions {
  ModelOptions model;
  weights::DecryptOptions decrypt;
  weights::IntegrityOptions integrity;
};

std::shared_ptr<Model> load_model(const std::string& path, const LoadOptions& opts);

}  // namespace a3s::power
