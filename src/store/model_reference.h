// A model reference as users write it (`a3s-power run NAME|PATH`, `serve --model NAME|PATH|NAME=PATH`,
// the config's `models`): a GGUF file path or the name of a model in the store. The one place that
// tells the two apart and finds the file.
#pragma once

#include <string>

#include "store/store.h"

namespace a3s::power::store {

// True when `ref` names a file: an existing regular file, or text spelled like a path (ending in
// ".gguf", or starting with "/", "./" or "../"), so that a missing file is reported as a missing
// file rather than looked up in the store.
bool is_path_reference(const std::string& ref);

// The name a model served from `path` gets when none is given: the file name without ".gguf".
std::string default_model_name(const std::string& path);

// The GGUF file to load for `ref`: `ref` itself when it is a regular file, else the blob of the store
// model named `ref`.
// Errors: model_not_found when it is neither (the name shown through printable_name, with a hint at
// `a3s-power list` / `pull`), or when the store's blob of the model is missing.
std::string resolve_model_file(const std::string& ref, const Store& store);

}  // namespace a3s::power::store
