#include "a3s/power/error.h"

#include <string_view>
#include <unordered_map>

namespace a3s::power {
namespace {

struct Mapping {
  int http;
  int exit;
};

const std::unordered_map<std::string_view, Mapping>& table() {
  static const std::unordered_map<std::string_view, Mapping> t = {
      {codes::kInvalidArgument, {400, 2}},
      {codes::kInvalidModel, {400, 2}},
      {codes::kUnsupportedType, {400, 2}},
      {codes::kUnsupportedArch, {400, 2}},
      {codes::kModelNotFound, {404, 2}},
      {codes::kIo, {400, 2}},
      {codes::kContextLengthExceeded, {400, 2}},
      {codes::kInternal, {500, 1}},
      {codes::kResourceExhausted, {503, 2}},
      {"invalid_request_error", {400, 2}},
      {"invalid_json", {400, 2}},
      {"unsupported_field", {400, 2}},
      {"local_path_refused", {400, 2}},
      {"invalid_api_key", {401, 2}},
      {"not_found", {404, 2}},
      {"request_too_large", {413, 2}},
      {"rate_limited", {429, 1}},
      {"queue_timeout", {503, 1}},
      {"service_unavailable", {503, 1}},
      {"config_error", {400, 2}},
      {"integrity_error", {400, 2}},
      {codes::kModelKey, {500, 2}},           // the server's model key configuration
      {codes::kModelKeyMismatch, {500, 2}},
      {codes::kDecryptionFailed, {500, 2}},   // a served model file that fails authentication
      {codes::kRefusedInTeeMode, {403, 2}},
      {"tee_not_enabled", {503, 2}},      // /v1/attestation on a server without tee_mode
      {"tee_unavailable", {500, 2}},      // tee_policy strict without attestation hardware (startup)
      {"attestation_failed", {500, 1}},   // the platform failed to produce evidence
      {"offline", {503, 2}},
      {"unsupported_chat_template", {400, 2}},
      {"size_limit_exceeded", {413, 2}},  // model larger than the pull's max_bytes
      {"method_not_allowed", {405, 2}},   // route exists, other method (Allow header)
      {"header_too_large", {431, 2}},     // request line + headers over the server's limit
      {"server_error", {502, 1}},         // client: the server answered with an error / unusable answer
      {"server_unreachable", {503, 2}},   // client: no connection to the server (refused, TLS, timeout)
  };
  return t;
}

}  // namespace

int http_status_for(const std::string& code) {
  auto it = table().find(code);
  return it == table().end() ? 500 : it->second.http;
}

int exit_code_for(const std::string& code) {
  auto it = table().find(code);
  return it == table().end() ? 1 : it->second.exit;
}

}  // namespace a3s::power
