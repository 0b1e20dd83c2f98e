#include "model/encrypted/encrypted_byte_reader.h"

#include "a3s/power/error.h"

namespace a3s::power::weights {

EncryptedByteReader::EncryptedByteReader(std::unique_ptr<crypto::EncryptedReader> reader)
    : reader_(std::move(reader)) {
  if (!reader_) throw Error(codes::kInternal, "no encrypted reader");
  size_ = reader_->size();
}

void EncryptedByteReader::read(uint64_t offset, std::span<uint8_t> dst) {
  if (offset > size_ || dst.size() > size_ - offset)
    throw Error(codes::kIo, "read past the end of the decrypted model " + reader_->name());
  std::lock_guard<std::mutex> lock(mu_);
  reader_->read(offset, dst.size(), dst.data());
}

}  // namespace a3s::power::weights
