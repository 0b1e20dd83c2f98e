// Opening a model file: a plaintext GGUF file is memory-mapped as it is; an encrypted model
// (docs/encrypted-weights.md, detected by its magic) is decrypted into a PlaintextImage according to
// DecryptOptions and parsed in place. Plaintext never touches a filesystem in any mode.
//
// Decrypt modes:
//   file    sealed memfd (plaintext_image.h)
//   memory  locked anonymous memory, wiped on unload (the default)
//   stream  no plaintext image: only the GGUF header is decrypted and parsed (gguf::File::from_prefix);
//           the weights are decrypted tensor by tensor while layer streaming reads them
//           (`stream_reader`, an EncryptedByteReader), so the engine must stream (--weights stream).
//
// In every mode the whole file is authenticated and the plaintext SHA-256 in the header checked
// before the model is parsed (fail closed): the memory and file modes while filling the image, the
// stream mode in one pass that keeps a single chunk in memory at a time. The plaintext and ciphertext
// (whole file) SHA-256 are reported.
//
// Integrity (model/integrity/integrity.h): with `integrity.needs_digest()`, a plaintext file is not mapped
// but read into locked anonymous memory while it is hashed (plaintext_image.h, read_file_image) and
// served from there; an encrypted model's authenticated plaintext digest is used as it is. The pin
// and the signature are checked before the GGUF is parsed.
//
// Errors: those of gguf::File, crypto::EncryptedReader and crypto::KeyProvider, plus
// Error(codes::kInvalidArgument) when decryption was requested explicitly (`required`) for a file that
// is not encrypted, Error(codes::kModelKey) for an encrypted file without a key, and
// check_integrity's Error(codes::kIntegrity).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "a3s/power/settings.h"
#include "model/integrity/integrity.h"

namespace a3s::power::gguf {
class File;
}
namespace a3s::power::crypto {
class KeyProvider;
}

namespace a3s::power::weights {

class ByteReader;

// DecryptMode (file / memory / stream) is in a3s/power/settings.h.

struct DecryptOptions {
  DecryptMode mode = DecryptMode::Memory;
  // Where the key comes from; null → the A3S_MODEL_KEY environment variable.
  std::shared_ptr<const crypto::KeyProvider> key;
  // The user asked for decryption (a key file, a --decrypt mode): a plaintext file is then an error
  // rather than being loaded as it is.
  bool required = false;
};

struct OpenedModel {
  std::shared_ptr<const gguf::File> file;  // the parsed GGUF (mapping or plaintext image)
  bool encrypted = false;
  // Encrypted models only:
  DecryptMode mode = DecryptMode::Memory;
  std::string plaintext_sha256;   // hex; verified against the decrypted bytes
  std::string ciphertext_sha256;  // hex of the encrypted file
  std::string key_id;             // hex
  uint64_t encrypted_bytes = 0;   // size of the encrypted file
  bool locked = false;            // memory mode: every page mlocked
  // Stream mode: the source of the tensor bytes (`file` is then header_only()).
  std::shared_ptr<ByteReader> stream_reader;
  // Integrity: hex SHA-256 of the plaintext bytes (every encrypted model; a plaintext one when a
  // digest was needed, else ""), and whether `<path>.sig` was verified.
  std::string sha256;
  bool signature_verified = false;
  // A plaintext model read into locked memory to be measured: its weights must stay resident.
  bool measured_image = false;
};

// True when the file at `path` starts with the encrypted-model magic. Unreadable → false (the open
// that follows reports the error).
bool is_encrypted_model_file(const std::string& path);

OpenedModel open_model_file(const std::string& path, const DecryptOptions& opts,
                            const IntegrityOptions& integrity = {});

}  // namespace a3s::power::weights
