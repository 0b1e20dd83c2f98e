// GGUF reader (versions 2 and 3).
//
// Format source: `docs/gguf.md` in ggml-org/ggml — header (magic "GGUF", version u32, tensor_count
// u64, metadata_kv_count u64), metadata key/value pairs (key: gguf string = u64 length + bytes;
// value: u32 type + payload), tensor infos (name, n_dims u32, ne[n_dims] u64, type u32, offset u64),
// then padding to `general.alignment` (default 32) and the tensor data section.
//
// Every count, length, offset and size is bounds- and overflow-checked against the file size before
// use. Invalid input throws a3s::power::Error with code "invalid_model" (or "unsupported_tensor_type")
// and a one-line message naming the file offset or tensor. Nothing here ever reads out of bounds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "model/gguf/tensor_type.h"

namespace a3s::power::gguf {

// Limits beyond which a file is rejected as invalid_model:
// keys longer than 65535 bytes and tensor names longer than 64 bytes (both from the spec), arrays
// nested more than kMaxArrayDepth deep, more than kMaxMetadataValues decoded metadata values in
// total (array elements included; real vocabularies need about 1M), n_dims outside 1..4.
inline constexpr int kMaxArrayDepth = 3;
inline constexpr uint64_t kMaxMetadataValues = uint64_t{1} << 23;

enum class ValueType : uint32_t {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
};

// A metadata value. Integers of every width are widened to int64/uint64 (signedness kept),
// floats to double. Arrays hold their element type and decoded elements (nested arrays allowed).
struct Value;
struct Array {
  ValueType elem_type;
  std::vector<Value> items;
};
struct Value {
  ValueType type;
  std::variant<uint64_t, int64_t, double, bool, std::string, Array> v;
};

struct TensorInfo {
  std::string name;
  uint32_t n_dims = 0;
  std::array<int64_t, 4> ne{1, 1, 1, 1};  // ne[0] = elements per row (fastest dimension)
  TensorType type = TensorType::F32;
  uint64_t offset = 0;       // relative to the start of the data section
  uint64_t size_bytes = 0;   // exact byte size (rows × row_size)
  uint64_t file_offset = 0;  // absolute offset in the file
  int64_t n_elements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
  int64_t n_rows() const { return ne[1] * ne[2] * ne[3]; }
};

// Renders untrusted GGUF text (a key, a tensor name, a string value, a path) for a one-line message:
// printable ASCII is kept, everything else (and the backslash) becomes \xNN, and input longer than
// max_bytes is cut with "...".
std::string shown_text(std::string_view s, size_t max_bytes = 96);

class File {
 public:
  // Maps the file read-only and parses it. Throws Error(codes::kIo) if it cannot be opened,
  // Error(codes::kInvalidModel/"unsupported_tensor_type") if it is not a valid GGUF v2/v3 file.
  static std::shared_ptr<File> open(const std::string& path);
  // Parses an in-memory image (fuzzing, decrypted models). `bytes` must outlive the File unless
  // `owned` holds them.
  static std::shared_ptr<File> from_memory(std::span<const uint8_t> bytes, std::string name = "<memory>",
                                           std::shared_ptr<void> owner = nullptr);
  // Parses only the header (metadata and tensor infos) of a file of `file_size` bytes whose bytes
  // come from `read(offset, dst)` — an encrypted model decrypted piece by piece. Reads a growing
  // prefix until the header parses; bounds are checked against `file_size`. The result has no tensor
  // data: header_only() is true and tensor_data() must not be called (the bytes are read elsewhere,
  // at each tensor's file_offset). Errors as open(), plus those `read` throws.
  using PrefixReader = std::function<void(uint64_t offset, std::span<uint8_t> dst)>;
  static std::shared_ptr<File> from_prefix(const PrefixReader& read, uint64_t file_size, std::string name);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // absolute offset of the data section
  std::span<const uint8_t> bytes() const { return {base_, size_}; }  // the header only, if header_only()
  uint64_t size() const { return file_size_; }                        // bytes of the whole file
  bool header_only() const { return header_only_; }

  // Metadata.
  const Value* find(const std::string& key) const;
  bool has(const std::string& key) const { return find(key) != nullptr; }
  const std::vector<std::string>& keys() const { return key_order_; }
  // Typed getters: nullopt when absent; throw Error(codes::kInvalidModel) naming the key when present with
  // an incompatible type. Integer getters accept any integer type whose value fits.
  std::optional<std::string> get_string(const std::string& key) const;
  std::optional<uint64_t> get_u64(const std::string& key) const;
  std::optional<int64_t> get_i64(const std::string& key) const;
  std::optional<double> get_f64(const std::string& key) const;  // accepts float or integer values
  std::optional<bool> get_bool(const std::string& key) const;
  // Arrays: nullopt when absent; throw when present with another element type.
  std::optional<std::vector<std::string>> get_string_array(const std::string& key) const;
  std::optional<std::vector<double>> get_f64_array(const std::string& key) const;
  std::optional<std::vector<int64_t>> get_i64_array(const std::string& key) const;

  // Tensors, in file order.
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(const std::string& name) const;
  // Pointer to a tensor's bytes inside the mapping (valid while the File lives).
  const uint8_t* tensor_data(const TensorInfo& t) const { return base_ + t.file_offset; }

 private:
  File() = default;
  static std::shared_ptr<File> make_empty();
  void parse();

  std::string path_;
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;         // bytes at base_
  uint64_t file_size_ = 0;  // bytes of the file (> size_ only when header_only_)
  bool header_only_ = false;
  void* map_ = nullptr;  // non-null when we own an mmap of size_ bytes
  std::shared_ptr<void> owner_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::unordered_map<std::string, Value> kv_;
  std::vector<std::string> key_order_;
  std::vector<TensorInfo> tensors_;
  std::unordered_map<std::string, size_t> tensor_index_;
};

}  // namespace a3s::power::gguf
