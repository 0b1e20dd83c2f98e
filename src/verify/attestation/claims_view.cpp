#include "verify/attestation/claims_view.h"

#include <openssl/evp.h>

#include "a3s/power/error.h"
#include "base/canonical_json.h"
#include "attestation/attestation_response.h"
#include "attestation/receipt.h"

namespace a3s::power::verify::attestation {
namespace {

const nlohmann::json* string_at(const nlohmann::json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? &*it : nullptr;
}

}  // namespace

std::optional<ClaimsView> read_claims(const nlohmann::json& claims, std::string& error) {
  ClaimsView c;
  const nlohmann::json* v = string_at(claims, "schema");
  if (!v) {
    error = "claims member \"schema\" must be a string";
    return std::nullopt;
  }
  c.schema = v->get<std::string>();
  if (c.schema != kClaimsSchema) return c;
  if (!(v = string_at(claims, "nonce")) || !decode_lower_hex(v->get<std::string>(), c.nonce)) {
    error = "claims member \"nonce\" must be 64 lowercase hex digits";
    return std::nullopt;
  }
  const auto model = claims.find("model");
  if (model == claims.end() || !model->is_object()) {
    error = "claims member \"model\" must be an object";
    return std::nullopt;
  }
  if (!(v = string_at(*model, "name")) || v->get<std::string>().empty()) {
    error = "claims member \"model.name\" must be a non-empty string";
    return std::nullopt;
  }
  c.model_name = v->get<std::string>();
  if (!(v = string_at(*model, "sha256")) || !decode_lower_hex(v->get<std::string>(), c.model_sha256)) {
    error = "claims member \"model.sha256\" must be 64 lowercase hex digits";
    return std::nullopt;
  }
  c.model_sha256_hex = v->get<std::string>();
  const auto runtime = claims.find("runtime");
  if (runtime == claims.end() || !runtime->is_object() || !(v = string_at(*runtime, "tee_policy")) ||
      (*v != "strict" && *v != "development")) {
    error = "claims member \"runtime.tee_policy\" must be \"strict\" or \"development\"";
    return std::nullopt;
  }
  c.tee_policy = v->get<std::string>();
  if (!(v = string_at(*runtime, "config_sha256")) || !decode_lower_hex(v->get<std::string>(), c.config_sha256)) {
    error = "claims member \"runtime.config_sha256\" must be 64 lowercase hex digits";
    return std::nullopt;
  }
  if (const auto tls = claims.find("tls"); tls != claims.end()) {
    std::array<uint8_t, 32> spki{};
    if (!tls->is_object() || !(v = string_at(*tls, "spki_sha256")) || !decode_lower_hex(v->get<std::string>(), spki)) {
      error = "claims member \"tls.spki_sha256\" must be 64 lowercase hex digits";
      return std::nullopt;
    }
    c.tls_spki_sha256 = spki;
  }
  if (const auto receipt = claims.find("receipt"); receipt != claims.end()) {
    std::array<uint8_t, 32> pub{};
    if (!receipt->is_object() || !(v = string_at(*receipt, "ed25519_pub")) ||
        !decode_lower_hex(v->get<std::string>(), pub)) {
      error = "claims member \"receipt.ed25519_pub\" must be 64 lowercase hex digits";
      return std::nullopt;
    }
    if (!(v = string_at(*receipt, "key_id")) || *v != tee::receipt_key_id(pub)) {
      error = "claims member \"receipt.key_id\" must be the key id of receipt.ed25519_pub";
      return std::nullopt;
    }
    c.receipt_public_key = pub;
    c.receipt_key_id = v->get<std::string>();
  }
  return c;
}

std::optional<std::array<uint8_t, 32>> claims_digest(const nlohmann::json& claims, std::string& error) {
  std::string canonical;
  try {
    canonical = canonical_json(claims);
  } catch (const std::exception& e) {  // Error(codes::kInvalidArgument): the message names the path only
    error = std::string("the claims cannot be canonicalised: ") + e.what();
    return std::nullopt;
  }
  std::array<uint8_t, 32> digest{};
  unsigned int size = 0;
  if (EVP_Digest(canonical.data(), canonical.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size()) {
    error = "SHA-256 of the claims failed";
    return std::nullopt;
  }
  return digest;
}

}  // namespace a3s::power::verify::attestation
