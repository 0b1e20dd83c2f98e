// Model names and their manifest file names.
//
// A model name is what users type (`a3s-power show NAME`, the "model" field of API requests):
// non-empty, at most 256 bytes, valid UTF-8, no control characters (U+0000..U+001F, U+007F).
//
// The manifest file name is an injective escape of the name: every byte outside [A-Za-z0-9._]
// becomes "%XX" (two uppercase hex digits), so '%' itself becomes "%25" and "org/repo:quant"
// ("org%2Frepo%3Aquant") never equals "org-repo-quant" ("org%2Drepo%2Dquant"). When the escape
// would exceed 200 bytes (file names are limited to 255), the name "%%sha256-<hex of the name's
// SHA-256>" is used instead; a plain escape never contains "%%", so both forms stay distinct.
#pragma once

#include <string>
#include <string_view>

namespace a3s::power::store {

inline constexpr size_t kMaxModelNameBytes = 256;

// Empty string when `name` is valid, else a one-line reason (never containing the name).
std::string model_name_problem(std::string_view name);

// Throws Error(codes::kInvalidArgument) when the name is invalid.
void validate_model_name(std::string_view name);

// File name stem (without ".json") of the manifest for a valid name.
std::string manifest_file_stem(std::string_view name);

}  // namespace a3s::power::store
