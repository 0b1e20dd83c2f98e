#include "openai/request_fields.h"

#include <cmath>

namespace a3s::power::openai {

using nlohmann::json;

void bad_field(const std::string& param, const std::string& message, ErrorCode code) {
  throw ApiError(code, message, param);
}

void unsupported_field(const std::string& param, const std::string& what) {
  throw ApiError(codes::kUnsupportedField, "'" + param + "' is not supported: " + what, param);
}

bool is_given(const json& body, const char* key) {
  auto it = body.find(key);
  return it != body.end() && !it->is_null();
}

double number_in(const json& body, const char* key, double lo, double hi, bool lo_open) {
  const json& v = body.at(key);
  if (!v.is_number()) bad_field(key, std::string("'") + key + "' must be a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d > hi || d < lo || (lo_open && d == lo)) {
    bad_field(key, std::string("'") + key + "' is out of range");
  }
  return d;
}

int64_t integer_of(const json& body, const char* key) {
  const json& v = body.at(key);
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
  }
  bad_field(key, std::string("'") + key + "' must be an integer");
}

bool bool_of(const json& body, const char* key) {
  const json& v = body.at(key);
  if (!v.is_boolean()) bad_field(key, std::string("'") + key + "' must be a boolean");
  return v.get<bool>();
}

SamplingParams api_sampling_defaults() {
  SamplingParams s;
  s.temperature = 1.0f;
  s.top_p = 1.0f;
  s.top_k = 0;
  s.min_p = 0.0f;
  s.repeat_penalty = 1.0f;
  s.frequency_penalty = 0.0f;
  s.presence_penalty = 0.0f;
  return s;
}

}  // namespace a3s::power::openai
