#include "a3s/power/error.h"

#include <array>
#include <string_view>
#include <unordered_map>

namespace a3s::power {
namespace {

using C = ErrorCode;

// The one table: code, stable string, HTTP status, CLI exit status.
const std::vector<ErrorCodeInfo>& rows() {
  static const std::vector<ErrorCodeInfo> t = {
      {C::kInvalidArgument, "invalid_argument", 400, 2},
      {C::kInvalidModel, "invalid_model", 400, 2},
      {C::kUnsupportedType, "unsupported_tensor_type", 400, 2},
      {C::kUnsupportedArch, "unsupported_architecture", 400, 2},
      {C::kUnsupportedModelFeature, "unsupported_model_feature", 400, 2},
      {C::kModelNotFound, "model_not_found", 404, 2},
      {C::kIo, "io_error", 400, 2},
      {C::kContextLengthExceeded, "context_length_exceeded", 400, 2},
      {C::kInternal, "internal_error", 500, 1},
      {C::kResourceExhausted, "resource_exhausted", 503, 2},
      {C::kInvalidRequest, "invalid_request_error", 400, 2},
      {C::kInvalidJson, "invalid_json", 400, 2},
      {C::kUnsupportedField, "unsupported_field", 400, 2},
      {C::kLocalPathRefused, "local_path_refused", 400, 2},
      {C::kInvalidApiKey, "invalid_api_key", 401, 2},
      {C::kPermissionDenied, "permission_denied", 403, 2},
      {C::kNotFound, "not_found", 404, 2},
      {C::kRequestTooLarge, "request_too_large", 413, 2},
      {C::kRateLimited, "rate_limited", 429, 1},
      {C::kQueueTimeout, "queue_timeout", 503, 1},
      {C::kServiceUnavailable, "service_unavailable", 503, 1},
      {C::kConfig, "config_error", 400, 2},
      {C::kIntegrity, "integrity_error", 400, 2},
      {C::kModelKey, "model_key_error", 500, 2},  // the server's model key configuration
      {C::kModelKeyMismatch, "model_key_mismatch", 500, 2},
      {C::kDecryptionFailed, "decryption_failed", 500, 2},  // a served model file that fails authentication
      {C::kRefusedInTeeMode, "refused_in_tee_mode", 403, 2},
      {C::kTeeNotEnabled, "tee_not_enabled", 503, 2},
      {C::kTeeUnavailable, "tee_unavailable", 500, 2},
      {C::kAttestationFailed, "attestation_failed", 500, 1},
      {C::kOffline, "offline", 503, 2},
      {C::kUnsupportedChatTemplate, "unsupported_chat_template", 400, 2},
      {C::kSizeLimitExceeded, "size_limit_exceeded", 413, 2},
      {C::kMethodNotAllowed, "method_not_allowed", 405, 2},
      {C::kHeaderTooLarge, "header_too_large", 431, 2},
      {C::kServerError, "server_error", 502, 1},
      {C::kServerUnreachable, "server_unreachable", 503, 2},
      {C::kCancelled, "cancelled", 500, 1},
      // The parse errors of attestation evidence; their strings are the verifier's failed-step names
      // (attestation/verify_result.h).
      {C::kMalformedEvidence, "malformed_evidence", 500, 1},
      {C::kUnsupportedVersion, "unsupported_version", 500, 1},
      {C::kPromptCacheUnsupported, "prompt_cache_unsupported", 400, 2},
      // A command or route of the product that this build profile does not contain (README "Build
      // profiles"): 501 Not Implemented, and exit 2 like a usage error.
      {C::kNotBuilt, "not_built", 501, 2},
  };
  return t;
}

const ErrorCodeInfo& row(ErrorCode code) {
  const auto& t = rows();
  const auto i = static_cast<size_t>(code);
  if (i >= t.size() || t[i].code != code) throw std::logic_error("error code table out of order");
  return t[i];
}

const std::unordered_map<std::string_view, const ErrorCodeInfo*>& by_name() {
  static const std::unordered_map<std::string_view, const ErrorCodeInfo*> m = [] {
    std::unordered_map<std::string_view, const ErrorCodeInfo*> out;
    for (const auto& r : rows()) out.emplace(r.name, &r);
    return out;
  }();
  return m;
}

}  // namespace

const std::vector<ErrorCodeInfo>& error_code_table() { return rows(); }

const std::string& code_string(ErrorCode code) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& r : rows()) out.emplace_back(r.name);
    return out;
  }();
  row(code);  // checks the table's order
  return names[static_cast<size_t>(code)];
}

int http_status_for(ErrorCode code) { return row(code).http_status; }
int exit_code_for(ErrorCode code) { return row(code).exit_status; }

int http_status_for(const std::string& code) {
  auto it = by_name().find(code);
  return it == by_name().end() ? 500 : it->second->http_status;
}

int exit_code_for(const std::string& code) {
  auto it = by_name().find(code);
  return it == by_name().end() ? 1 : it->second->exit_status;
}

}  // namespace a3s::power
