// GGUF writer (version 3), streaming: the header, metadata and tensor index are written first, then
// the tensor bytes are appended in index order without ever holding the whole data section.
//
// Format source: `docs/gguf.md` in ggml-org/ggml (the layout gguf_file.h reads). Tensor data starts
// at the first multiple of the alignment (`general.alignment`, default 32) after the tensor infos;
// every tensor's offset is a multiple of the alignment (zero padding between tensors).
//
// The file is written to a temporary file (base/atomic_write.h) and renamed over `path` only by finish(), so an interrupted or
// failed write never leaves a truncated model under the final name. Errors: Error(codes::kInvalidArgument)
// for a bad tensor (name > 64 bytes, n_dims outside 1..4, a row that is not a whole number of blocks,
// an unknown or activation-only type) or for bytes that do not match the declared tensor sizes;
// Error(codes::kIo) when the file cannot be written.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/atomic_write.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::gguf {

class Writer {
 public:
  explicit Writer(uint64_t alignment = 32);
  ~Writer();  // removes the temporary file unless finish() succeeded
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Metadata, written in first-insertion order; setting a key again replaces its value.
  void set(const std::string& key, Value v);
  void set_string(const std::string& key, std::string v);
  void set_u32(const std::string& key, uint32_t v);
  void set_f32(const std::string& key, float v);
  void set_bool(const std::string& key, bool v);

  // Declares a tensor: ne[0] elements per row (fastest), 1..4 dimensions. Returns its index.
  size_t add_tensor(const std::string& name, TensorType type, std::span<const int64_t> ne);
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  uint64_t data_bytes() const;  // size of the data section (with padding)

  // Creates a temporary file next to `path` and writes header, metadata and tensor infos. No set/add_tensor afterwards.
  void begin(const std::string& path);
  // Appends bytes of the current tensor (tensors in index order; a tensor may come in any number of
  // pieces). Moving to the next tensor happens when the current one is complete.
  void append(std::span<const uint8_t> bytes);
  // Checks that every tensor is complete, flushes, syncs and renames the file to `path` (mode 0644).
  void finish();

 private:
  void write_raw(const void* p, size_t n);
  void pad_to_alignment();

  uint64_t alignment_;
  std::vector<std::pair<std::string, Value>> kv_;
  std::vector<TensorInfo> tensors_;
  void flush();

  static constexpr size_t kBufferBytes = 1 << 20;
  std::string path_;
  std::unique_ptr<AtomicFileWriter> file_;  // set from begin() until finish()
  std::vector<uint8_t> buf_;                // bytes not yet handed to file_
  uint64_t written_ = 0;     // bytes written to the file so far
  size_t cur_ = 0;           // tensor being appended
  uint64_t cur_done_ = 0;    // bytes of tensor cur_ written
};

}  // namespace a3s::power::gguf
