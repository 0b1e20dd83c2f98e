// Typed errors for A3S Power.
//
// Every failure that crosses a layer boundary is an `a3s::power::Error` with an ErrorCode, whose
// stable string (e.g. "invalid_model", "model_not_found", "context_length_exceeded") clients see. The
// code maps to an HTTP status and a CLI exit status in exactly one place (src/base/error.cpp). Messages are one line and
// never contain user text (prompts, messages, completions, keys).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace a3s::power {

// Every error code, with its stable string (clients, scripts and tests match on it), its HTTP status
// and its CLI exit status in one table (src/base/error.cpp; tests/unit/base/data/error_codes.txt is
// the committed snapshot a test compares it with, so no code changes its status by accident).
enum class ErrorCode {
  kInvalidArgument,          // "invalid_argument"           400, exit 2: bad flag / field value
  kInvalidModel,             // "invalid_model"              400, 2: corrupt / unsupported GGUF
  kUnsupportedType,          // "unsupported_tensor_type"    400, 2
  kUnsupportedArch,          // "unsupported_architecture"   400, 2
  kUnsupportedModelFeature,  // "unsupported_model_feature"  400, 2: a tensor or metadata key the graph does not compute
  kModelNotFound,            // "model_not_found"            404, 2
  kIo,                       // "io_error"                   400, 2: unreadable file etc.
  kContextLengthExceeded,    // "context_length_exceeded"    400, 2
  kInternal,                 // "internal_error"             500, 1
  kResourceExhausted,        // "resource_exhausted"         503, 2: memory or threads unavailable
  kInvalidRequest,           // "invalid_request_error"      400, 2: a malformed API request
  kInvalidJson,              // "invalid_json"               400, 2
  kUnsupportedField,         // "unsupported_field"          400, 2: a field the server does not implement
  kLocalPathRefused,         // "local_path_refused"         400, 2: pull of a local path over HTTP
  kInvalidApiKey,            // "invalid_api_key"            401, 2
  kPermissionDenied,         // "permission_denied"          403, 2: the key lacks the scope (admin routes)
  kNotFound,                 // "not_found"                  404, 2: no such route
  kRequestTooLarge,          // "request_too_large"          413, 2
  kRateLimited,              // "rate_limited"               429, 1
  kQueueTimeout,             // "queue_timeout"              503, 1
  kServiceUnavailable,       // "service_unavailable"        503, 1
  kConfig,                   // "config_error"               400, 2: configuration file / env / flags
  kIntegrity,                // "integrity_error"            400, 2: digest differs from the pinned one
  kModelKey,                 // "model_key_error"            500, 2: key missing, unreadable, malformed
  kModelKeyMismatch,         // "model_key_mismatch"         500, 2: key id differs from the file's
  kDecryptionFailed,         // "decryption_failed"          500, 2: authentication failed, truncated
  kRefusedInTeeMode,         // "refused_in_tee_mode"        403, 2: not allowed with tee_mode
  kTeeNotEnabled,            // "tee_not_enabled"            503, 2: /v1/attestation without tee_mode
  kTeeUnavailable,           // "tee_unavailable"            500, 2: strict policy, no attestation hardware
  kAttestationFailed,        // "attestation_failed"         500, 1: the platform failed to produce evidence
  kOffline,                  // "offline"                    503, 2
  kUnsupportedChatTemplate,  // "unsupported_chat_template"  400, 2
  kSizeLimitExceeded,        // "size_limit_exceeded"        413, 2: model larger than the pull's max_bytes
  kMethodNotAllowed,         // "method_not_allowed"         405, 2: route exists, other method
  kHeaderTooLarge,           // "header_too_large"           431, 2: request line + headers over the limit
  kServerError,              // "server_error"               502, 1: client: the server answered with an error
  kServerUnreachable,        // "server_unreachable"         503, 2: client: no connection to the server
  kCancelled,                // "cancelled"                  500, 1: the operation was cancelled
  kMalformedEvidence,        // "malformed_evidence"         500, 1: attestation evidence that does not parse
  kUnsupportedVersion,       // "unsupported_version"        500, 1: evidence of a version not implemented
  kPromptCacheUnsupported,   // "prompt_cache_unsupported"   400, 2: prompt_cache_key on a path that cannot honour it
  kNotBuilt,                 // "not_built"                  501, 2: a feature this build profile leaves out (no libcurl, …)
};

// The stable string of a code ("invalid_argument", ...).
const std::string& code_string(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), kind_(code), code_(code_string(code)) {}
  ErrorCode kind() const noexcept { return kind_; }
  const std::string& code() const noexcept { return code_; }  // code_string(kind())

 private:
  ErrorCode kind_;
  std::string code_;
};

// The names code writes (codes::kInvalidArgument, ...), one per ErrorCode.
namespace codes {
inline constexpr ErrorCode kInvalidArgument = ErrorCode::kInvalidArgument;
inline constexpr ErrorCode kInvalidModel = ErrorCode::kInvalidModel;
inline constexpr ErrorCode kUnsupportedType = ErrorCode::kUnsupportedType;
inline constexpr ErrorCode kUnsupportedArch = ErrorCode::kUnsupportedArch;
inline constexpr ErrorCode kUnsupportedModelFeature = ErrorCode::kUnsupportedModelFeature;
inline constexpr ErrorCode kModelNotFound = ErrorCode::kModelNotFound;
inline constexpr ErrorCode kIo = ErrorCode::kIo;
inline constexpr ErrorCode kContextLengthExceeded = ErrorCode::kContextLengthExceeded;
inline constexpr ErrorCode kInternal = ErrorCode::kInternal;
inline constexpr ErrorCode kResourceExhausted = ErrorCode::kResourceExhausted;
inline constexpr ErrorCode kInvalidRequest = ErrorCode::kInvalidRequest;
inline constexpr ErrorCode kInvalidJson = ErrorCode::kInvalidJson;
inline constexpr ErrorCode kUnsupportedField = ErrorCode::kUnsupportedField;
inline constexpr ErrorCode kLocalPathRefused = ErrorCode::kLocalPathRefused;
inline constexpr ErrorCode kInvalidApiKey = ErrorCode::kInvalidApiKey;
inline constexpr ErrorCode kPermissionDenied = ErrorCode::kPermissionDenied;
inline constexpr ErrorCode kNotFound = ErrorCode::kNotFound;
inline constexpr ErrorCode kRequestTooLarge = ErrorCode::kRequestTooLarge;
inline constexpr ErrorCode kRateLimited = ErrorCode::kRateLimited;
inline constexpr ErrorCode kQueueTimeout = ErrorCode::kQueueTimeout;
inline constexpr ErrorCode kServiceUnavailable = ErrorCode::kServiceUnavailable;
inline constexpr ErrorCode kConfig = ErrorCode::kConfig;
inline constexpr ErrorCode kIntegrity = ErrorCode::kIntegrity;
inline constexpr ErrorCode kModelKey = ErrorCode::kModelKey;
inline constexpr ErrorCode kModelKeyMismatch = ErrorCode::kModelKeyMismatch;
inline constexpr ErrorCode kDecryptionFailed = ErrorCode::kDecryptionFailed;
inline constexpr ErrorCode kRefusedInTeeMode = ErrorCode::kRefusedInTeeMode;
inline constexpr ErrorCode kTeeNotEnabled = ErrorCode::kTeeNotEnabled;
inline constexpr ErrorCode kTeeUnavailable = ErrorCode::kTeeUnavailable;
inline constexpr ErrorCode kAttestationFailed = ErrorCode::kAttestationFailed;
inline constexpr ErrorCode kOffline = ErrorCode::kOffline;
inline constexpr ErrorCode kUnsupportedChatTemplate = ErrorCode::kUnsupportedChatTemplate;
inline constexpr ErrorCode kSizeLimitExceeded = ErrorCode::kSizeLimitExceeded;
inline constexpr ErrorCode kMethodNotAllowed = ErrorCode::kMethodNotAllowed;
inline constexpr ErrorCode kHeaderTooLarge = ErrorCode::kHeaderTooLarge;
inline constexpr ErrorCode kServerError = ErrorCode::kServerError;
inline constexpr ErrorCode kServerUnreachable = ErrorCode::kServerUnreachable;
inline constexpr ErrorCode kCancelled = ErrorCode::kCancelled;
inline constexpr ErrorCode kMalformedEvidence = ErrorCode::kMalformedEvidence;
inline constexpr ErrorCode kUnsupportedVersion = ErrorCode::kUnsupportedVersion;
inline constexpr ErrorCode kPromptCacheUnsupported = ErrorCode::kPromptCacheUnsupported;
inline constexpr ErrorCode kNotBuilt = ErrorCode::kNotBuilt;
}  // namespace codes

// One row of the code table.
struct ErrorCodeInfo {
  ErrorCode code;
  const char* name;  // the stable string
  int http_status;   // 400/401/403/404/405/413/429/431/500/502/503
  int exit_status;   // 2 bad input (flags, unreadable or corrupt model, ...), 1 internal
};

// Every row, in the order of ErrorCode.
const std::vector<ErrorCodeInfo>& error_code_table();

// The HTTP status and CLI exit status of a code.
int http_status_for(ErrorCode code);
int exit_code_for(ErrorCode code);
// The same by stable string (a code received from elsewhere); unknown strings → 500 / exit 1.
int http_status_for(const std::string& code);
int exit_code_for(const std::string& code);

}  // namespace a3s::power
