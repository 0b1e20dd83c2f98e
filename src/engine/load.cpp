#include "engine/load.h"

#include "engine/residency.h"

namespace a3s::power {

std::shared_ptr<Model> load_model(const std::string& path, const LoadOptions& opts) {
  const weights::IntegrityOptions& integrity = opts.integrity;
  // Refused before a possibly large file is read: a measured plaintext image cannot be streamed.
  if (integrity.needs_digest() && !weights::is_encrypted_model_file(path))
    engine::residency_for(engine::WeightBytes::kMeasuredImage, opts.model.weights,
                          weights::integrity_subject(path, integrity));
  weights::OpenedModel opened = weights::open_model_file(path, opts.decrypt, integrity);
  std::optional<EncryptionInfo> enc;
  if (opened.encrypted) {
    EncryptionInfo e;
    e.decrypt_mode = to_string(opened.mode);
    e.plaintext_sha256 = opened.plaintext_sha256;
    e.ciphertext_sha256 = opened.ciphertext_sha256;
    e.key_id = opened.key_id;
    e.encrypted_size = opened.encrypted_bytes;
    e.memory_locked = opened.locked;
    enc = std::move(e);
  }
  std::optional<IntegrityInfo> measured;
  if (!opened.sha256.empty()) {
    IntegrityInfo m;
    m.sha256 = opened.sha256;
    m.signature_verified = opened.signature_verified;
    m.plaintext_image = opened.measured_image;
    m.subject = weights::integrity_subject(path, integrity);
    measured = std::move(m);
  }
  return Model::load(std::move(opened.file), opts.model, std::move(enc), std::move(opened.stream_reader),
                     std::move(measured));
}

}  // namespace a3s::power
