// Reading the fields of an API request body (every route's parser uses these): each failure is an
// ApiError (HTTP 400) whose message names the field and never repeats its value.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/completion.h"  // SamplingParams
#include "openai/api_error.h"

namespace a3s::power::openai {

// ApiError(code, message, param).
[[noreturn]] void bad_field(const std::string& param, const std::string& message,
                            ErrorCode code = codes::kInvalidRequest);
// ApiError(unsupported_field, "'<param>' is not supported: <what>", param).
[[noreturn]] void unsupported_field(const std::string& param, const std::string& what);

// Whether `key` is present and not null (null means "not given").
bool is_given(const nlohmann::json& body, const char* key);
// body[key] as a finite number in [lo, hi] ((lo, hi] with lo_open).
double number_in(const nlohmann::json& body, const char* key, double lo, double hi, bool lo_open = false);
// body[key] as an integer (an integral float below 9e15 counts).
int64_t integer_of(const nlohmann::json& body, const char* key);
bool bool_of(const nlohmann::json& body, const char* key);

// The sampling both APIs define by default: temperature 1, no top_p / top_k / min_p, no penalties.
SamplingParams api_sampling_defaults();

}  // namespace a3s::power::openai
