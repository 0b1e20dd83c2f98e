// ByteReader: positioned reads of model bytes from storage, for weight sources that stream.
// The plaintext file reader is here; an encrypted-file reader (decrypting the chunks that cover a
// range) implements the same interface.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace a3s::power::weights {

class ByteReader {
 public:
  virtual ~ByteReader() = default;
  // Fills dst with the bytes at [offset, offset + dst.size()). Safe to call from several threads at
  // once. Throws Error(codes::kIo) when the range cannot be read completely.
  virtual void read(uint64_t offset, std::span<uint8_t> dst) = 0;
  virtual uint64_t size() const = 0;
};

// pread(2) on a file opened read-only (regular files only; FIFOs and devices are refused).
class FileByteReader final : public ByteReader {
 public:
  explicit FileByteReader(const std::string& path);
  ~FileByteReader() override;
  FileByteReader(const FileByteReader&) = delete;
  FileByteReader& operator=(const FileByteReader&) = delete;

  void read(uint64_t offset, std::span<uint8_t> dst) override;
  uint64_t size() const override { return size_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace a3s::power::weights
