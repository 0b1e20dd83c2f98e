#include "openai/api_error.h"

#include "chat/field_error.h"

namespace a3s::power::openai {

ApiError api_error_of(const Error& e) {
  if (const auto* api = dynamic_cast<const ApiError*>(&e)) return *api;
  const auto* field = dynamic_cast<const chat::FieldError*>(&e);
  return ApiError(e.kind(), e.what(), field != nullptr ? field->param() : std::string());
}

}  // namespace a3s::power::openai
