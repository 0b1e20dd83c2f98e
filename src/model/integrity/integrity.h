// Model integrity (docs/model-integrity.md): the SHA-256 of a model's plaintext GGUF bytes, checked
// against a pin and/or an Ed25519 signature before the model is parsed.
//
// The digest is computed once, over the very bytes the engine then serves (no second read from disk):
//   * plaintext model: the file is read into locked anonymous memory (model/sources/plaintext_image.h)
//     and hashed there; the weights are served from that memory, never from a file mapping;
//   * encrypted model: the plaintext digest authenticated by decryption (OpenedModel::plaintext_sha256).
// A plaintext model with a digest requirement cannot stream its weights from the file (a streamed
// read goes back to disk): open_model_file's caller refuses that combination.
//
// Errors (check_integrity): Error(codes::kIntegrity) naming the model — digest differs from the pin
// (both digests in the message), signature file missing / unreadable / malformed, signature invalid.
#pragma once

#include <optional>
#include <string>

#include "crypto/ed25519.h"
#include "crypto/sha256.h"

namespace a3s::power::weights {

struct IntegrityOptions {
  // Compute the plaintext digest even without a pin or signing key (attestation claims, TEE mode).
  bool measure = false;
  std::optional<crypto::Sha256Digest> pin;                 // required plaintext SHA-256
  std::optional<crypto::Ed25519PublicKey> signing_key;     // requires a valid `<path>.sig`
  std::string model_name;  // how messages name the model ("" → by its file path)

  // A pin or a signing key implies measuring.
  bool needs_digest() const { return measure || pin.has_value() || signing_key.has_value(); }
};

// What was established about a model's bytes.
struct IntegrityResult {
  std::string sha256;               // hex of the plaintext bytes ("" when not measured)
  bool signature_verified = false;  // a signing key was configured and `<path>.sig` verified
};

// "model 'NAME'" or "model file 'PATH'" (printable), the subject of integrity messages.
std::string integrity_subject(const std::string& path, const IntegrityOptions& opts);

// Checks `plaintext_sha256` of the model at `path` against opts.pin, then (with a signing key) the
// signature in `<path>.sig`. Returns the result; throws Error(codes::kIntegrity).
IntegrityResult check_integrity(const std::string& path, const crypto::Sha256Digest& plaintext_sha256,
                                const IntegrityOptions& opts);

}  // namespace a3s::power::weights
