#include "model/integrity/integrity.h"

#include <cstring>
#include <optional>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "base/printable.h"
#include "base/small_file.h"
#include "model/integrity/model_signature.h"

namespace a3s::power::weights {
namespace {

// The .sig file's text; std::nullopt when it is larger than any signature file (malformed).
std::optional<std::string> read_signature_file(const std::string& sig_path, const std::string& subject) {
  using Status = SmallFileRead::Status;
  const std::string shown = printable_name(sig_path);
  std::string text(crypto::kMaxSignatureFileBytes, '\0');
  const SmallFileRead r = read_small_file_into(sig_path, text);
  switch (r.status) {
    case Status::kOk:
      text.resize(r.size);
      return text;
    case Status::kTooLarge:
      return std::nullopt;
    case Status::kMissing:
      throw Error(codes::kIntegrity, subject + ": signature file '" + shown + "' is missing (model_signing_key is set)");
    case Status::kNotRegular:
      throw Error(codes::kIntegrity, subject + ": signature file '" + shown + "' is not a regular file");
    case Status::kError:
      break;
  }
  throw Error(codes::kIntegrity, subject + ": cannot read signature file '" + shown + "': " + std::strerror(r.error));
}

}  // namespace

std::string integrity_subject(const std::string& path, const IntegrityOptions& opts) {
  if (!opts.model_name.empty()) return "model '" + printable_name(opts.model_name) + "'";
  return "model file '" + printable_name(path) + "'";
}

IntegrityResult check_integrity(const std::string& path, const crypto::Sha256Digest& plaintext_sha256,
                                const IntegrityOptions& opts) {
  IntegrityResult r;
  r.sha256 = to_hex(plaintext_sha256);
  const std::string subject = integrity_subject(path, opts);
  if (opts.pin && *opts.pin != plaintext_sha256) {
    throw Error(codes::kIntegrity, subject + ": SHA-256 " + r.sha256 + " does not match its pin sha256:" +
                                       to_hex(*opts.pin));
  }
  if (opts.signing_key) {
    const std::string sig_path = crypto::signature_path_for(path);
    const std::optional<std::string> text = read_signature_file(sig_path, subject);
    const std::optional<crypto::Ed25519Signature> sig =
        text ? crypto::parse_signature_file_text(*text) : std::nullopt;
    if (!sig) {
      throw Error(codes::kIntegrity, subject + ": signature file '" + printable_name(sig_path) +
                                         "' is malformed (expected 128 hex digits)");
    }
    if (!crypto::verify_model_digest(*opts.signing_key, plaintext_sha256, *sig)) {
      throw Error(codes::kIntegrity, subject + ": the signature in '" + printable_name(sig_path) +
                                         "' does not verify with model_signing_key (SHA-256 " + r.sha256 + ")");
    }
    r.signature_verified = true;
  }
  return r;
}

}  // namespace a3s::power::weights
