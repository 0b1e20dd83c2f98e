// Typed errors for A3S Power.
//
// Every failure that crosses a layer boundary is an `a3s::power::Error` with a stable `code` string
// (e.g. "invalid_model", "model_not_found", "context_length_exceeded"). The code maps to an HTTP
// status and a CLI exit status in exactly one place (src/base/error.cpp). Messages are one line and
// never contain user text (prompts, messages, completions, keys).
#pragma once

#include <stdexcept>
#include <string>

namespace a3s::power {

class Error : public std::runtime_error {
 public:
  Error(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const noexcept { return code_; }

 private:
  std::string code_;
};

// Well-known codes (stable strings; clients and tests match on them).
namespace codes {
inline constexpr const char* kInvalidArgument = "invalid_argument";    // bad flag / field value
inline constexpr const char* kInvalidModel = "invalid_model";          // corrupt / unsupported GGUF
inline constexpr const char* kUnsupportedType = "unsupported_tensor_type";
inline constexpr const char* kUnsupportedArch = "unsupported_architecture";
inline constexpr const char* kModelNotFound = "model_not_found";
inline constexpr const char* kIo = "io_error";                         // unreadable file etc.
inline constexpr const char* kContextLengthExceeded = "context_length_exceeded";
inline constexpr const char* kInternal = "internal_error";
inline constexpr const char* kResourceExhausted = "resource_exhausted";  // memory or threads unavailable
// Encrypted models (docs/encrypted-weights.md).
inline constexpr const char* kModelKey = "model_key_error";             // key missing, unreadable, malformed
inline constexpr const char* kModelKeyMismatch = "model_key_mismatch";  // key id differs from the file's
inline constexpr const char* kDecryptionFailed = "decryption_failed";   // authentication failed, truncated
inline constexpr const char* kIntegrity = "integrity_error";            // digest differs from the pinned one
inline constexpr const char* kRefusedInTeeMode = "refused_in_tee_mode";  // not allowed with tee_mode
}  // namespace codes

// HTTP status for an error code (400/401/404/413/429/500/503). Unknown codes → 500.
int http_status_for(const std::string& code);

// CLI exit status for an error code: 2 for bad input (flags, unreadable or corrupt model, …),
// 1 for internal errors.
int exit_code_for(const std::string& code);

}  // namespace a3s::power
