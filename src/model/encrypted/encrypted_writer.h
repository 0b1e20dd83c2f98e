// Encrypts a plaintext (a GGUF model file) into the encrypted model format (encrypted_format.h).
//
// Two passes over the input: the plaintext SHA-256 goes into the header, and the header's digest
// into every chunk's AAD, so the header must be complete before the first chunk is sealed. The input
// is memory-mapped read-only; the output is written sequentially (header, then chunk by chunk).
// Each call draws a fresh random base nonce (OpenSSL's DRBG).
//
// Errors: Error(codes::kIo) for unreadable input or a failed write, Error(codes::kInvalidArgument) for a
// chunk size outside [4 KiB, 64 MiB] or not a multiple of 4096, or an input of 2^48 bytes or more.
#pragma once

#include <cstdint>
#include <string>

#include "model/encrypted/encrypted_format.h"
#include "crypto/model_key.h"
#include "crypto/sha256.h"

namespace a3s::power::crypto {

struct EncryptResult {
  EncryptedHeader header;
  Sha256Digest ciphertext_sha256{};  // of everything written to out_fd
};

// Reads the regular file `in_path` and writes the encrypted file to `out_fd` (from its current
// position).
EncryptResult encrypt_file(const std::string& in_path, int out_fd, const ModelKey& key,
                           uint32_t chunk_bytes = kDefaultChunkBytes);

}  // namespace a3s::power::crypto
