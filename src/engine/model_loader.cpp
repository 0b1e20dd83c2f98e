#include "engine/model_loader.h"

namespace a3s::power {

std::shared_ptr<Model> load_model(const std::string& path, const LoadOptions& opts) {
  weights::OpenedModel opened = weights::open_model_file(path, opts.decrypt);
  std::optional<EncryptionInfo> enc;
  if (opened.encrypted) {
    EncryptionInfo e;
    e.decrypt_mode = weights::to_string(opened.mode);
    e.plaintext_sha256 = opened.plaintext_sha256;
    e.ciphertext_sha256 = opened.ciphertext_sha256;
    e.key_id = opened.key_id;
    e.encrypted_size = opened.encrypted_bytes;
    e.memory_locked = opened.locked;
    enc = std::move(e);
  }
  return Model::load(std::move(opened.file), opts.model, std::move(enc), std::move(opened.stream_reader));
}

}  // namespace a3s::power
