// EncryptedByteReader: the ByteReader of stream decryption (`--decrypt stream`). Each read decrypts
// and authenticates exactly the chunks of the encrypted model file that cover the requested plaintext
// range, straight into the caller's buffer (model/encrypted/encrypted_reader.h); nothing else of the model is
// ever in memory in plaintext.
//
// Reads are serialized (one EncryptedReader, one lock): the layer-streaming I/O thread and the
// forward pass's row reads (token embeddings, output head chunks) may call concurrently.
// Errors: Error(codes::kDecryptionFailed) naming the chunk that fails authentication (the bytes already
// written to `dst` are wiped), Error(codes::kIo) when the file cannot be read.
#pragma once

#include <memory>
#include <mutex>

#include "model/encrypted/encrypted_reader.h"
#include "model/sources/byte_reader.h"

namespace a3s::power::weights {

class EncryptedByteReader final : public ByteReader {
 public:
  explicit EncryptedByteReader(std::unique_ptr<crypto::EncryptedReader> reader);

  void read(uint64_t offset, std::span<uint8_t> dst) override;
  uint64_t size() const override { return size_; }

 private:
  std::mutex mu_;
  std::unique_ptr<crypto::EncryptedReader> reader_;
  uint64_t size_ = 0;
};

}  // namespace a3s::power::weights
