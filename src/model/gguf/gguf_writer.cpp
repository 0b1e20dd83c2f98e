#include "model/gguf/gguf_writer.h"

#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>

#include "a3s/power/error.h"
#include "base/atomic_write.h"

namespace a3s::power::gguf {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" little-endian
constexpr size_t kMaxTensorName = 64;

template <typename T>
void put(std::vector<uint8_t>& b, T v) {
  static_assert(std::endian::native == std::endian::little, "GGUF is little-endian");
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + sizeof(T));
}

void put_string(std::vector<uint8_t>& b, const std::string& s) {
  put<uint64_t>(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}

// Payload of a value of type t (no type tag).
void put_payload(std::vector<uint8_t>& b, ValueType t, const Value& v) {
  auto as_u = [&] {
    if (const auto* u = std::get_if<uint64_t>(&v.v)) return *u;
    if (const auto* i = std::get_if<int64_t>(&v.v)) return static_cast<uint64_t>(*i);
    if (const auto* x = std::get_if<bool>(&v.v)) return static_cast<uint64_t>(*x);
    throw Error(codes::kInvalidArgument, "GGUF metadata value does not match its integer type");
  };
  auto as_f = [&] {
    if (const auto* d = std::get_if<double>(&v.v)) return *d;
    throw Error(codes::kInvalidArgument, "GGUF metadata value does not match its float type");
  };
  switch (t) {
    case ValueType::UINT8: case ValueType::INT8: put<uint8_t>(b, static_cast<uint8_t>(as_u())); break;
    case ValueType::UINT16: case ValueType::INT16: put<uint16_t>(b, static_cast<uint16_t>(as_u())); break;
    case ValueType::UINT32: case ValueType::INT32: put<uint32_t>(b, static_cast<uint32_t>(as_u())); break;
    case ValueType::UINT64: case ValueType::INT64: put<uint64_t>(b, as_u()); break;
    case ValueType::BOOL: put<uint8_t>(b, as_u() != 0 ? 1 : 0); break;
    case ValueType::FLOAT32: put<float>(b, static_cast<float>(as_f())); break;
    case ValueType::FLOAT64: put<double>(b, as_f()); break;
    case ValueType::STRING: {
      const auto* s = std::get_if<std::string>(&v.v);
      if (!s) throw Error(codes::kInvalidArgument, "GGUF metadata value is not a string");
      put_string(b, *s);
      break;
    }
    case ValueType::ARRAY: {
      const auto* a = std::get_if<Array>(&v.v);
      if (!a) throw Error(codes::kInvalidArgument, "GGUF metadata value is not an array");
      put<uint32_t>(b, static_cast<uint32_t>(a->elem_type));
      put<uint64_t>(b, a->items.size());
      for (const Value& item : a->items) {
        if (a->elem_type == ValueType::ARRAY) put<uint32_t>(b, static_cast<uint32_t>(ValueType::ARRAY));
        put_payload(b, a->elem_type, item);
      }
      break;
    }
    default:
      throw Error(codes::kInvalidArgument, "unknown GGUF metadata value type");
  }
}

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

}  // namespace

Writer::Writer(uint64_t alignment) : alignment_(alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw Error(codes::kInvalidArgument, "GGUF alignment must be a power of two");
  if (alignment != 32) set_u32("general.alignment", static_cast<uint32_t>(alignment));
}

Writer::~Writer() {
  // A writer destroyed before finish() leaves no file: file_'s destructor removes the temporary one.
}

void Writer::set(const std::string& key, Value v) {
  if (file_) throw Error(codes::kInvalidArgument, "GGUF metadata cannot change after begin()");
  for (auto& [k, old] : kv_)
    if (k == key) {
      old = std::move(v);
      return;
    }
  kv_.emplace_back(key, std::move(v));
}
void Writer::set_string(const std::string& key, std::string v) { set(key, {ValueType::STRING, std::move(v)}); }
void Writer::set_u32(const std::string& key, uint32_t v) { set(key, {ValueType::UINT32, uint64_t{v}}); }
void Writer::set_f32(const std::string& key, float v) { set(key, {ValueType::FLOAT32, double{v}}); }
void Writer::set_bool(const std::string& key, bool v) { set(key, {ValueType::BOOL, v}); }

size_t Writer::add_tensor(const std::string& name, TensorType type, std::span<const int64_t> ne) {
  if (file_) throw Error(codes::kInvalidArgument, "GGUF tensors cannot be added after begin()");
  if (name.empty() || name.size() > kMaxTensorName)
    throw Error(codes::kInvalidArgument, "GGUF tensor names must be 1 to 64 bytes");
  if (ne.empty() || ne.size() > 4)
    throw Error(codes::kInvalidArgument, "tensor " + name + ": n_dims must be 1 to 4");
  if (!type_info(type).weight_type)
    throw Error(codes::kInvalidArgument, "tensor " + name + ": " + type_name(type) + " is not a weight type");
  TensorInfo t;
  t.name = name;
  t.n_dims = static_cast<uint32_t>(ne.size());
  for (size_t i = 0; i < ne.size(); ++i) {
    if (ne[i] <= 0) throw Error(codes::kInvalidArgument, "tensor " + name + ": dimensions must be positive");
    t.ne[i] = ne[i];
  }
  t.type = type;
  const std::optional<size_t> row = row_size(type, t.ne[0]);
  if (!row)
    throw Error(codes::kInvalidArgument, "tensor " + name + ": " + std::to_string(t.ne[0]) +
                                             " elements per row is not a whole number of " + type_name(type) +
                                             " blocks");
  t.size_bytes = static_cast<uint64_t>(*row) * static_cast<uint64_t>(t.n_rows());
  t.offset = tensors_.empty() ? 0 : align_up(tensors_.back().offset + tensors_.back().size_bytes, alignment_);
  tensors_.push_back(std::move(t));
  return tensors_.size() - 1;
}

uint64_t Writer::data_bytes() const {
  return tensors_.empty() ? 0 : tensors_.back().offset + tensors_.back().size_bytes;
}

void Writer::write_raw(const void* p, size_t n) {
  const auto* bytes = static_cast<const uint8_t*>(p);
  if (buf_.size() + n > kBufferBytes) flush();
  if (n >= kBufferBytes) {
    file_->write(std::span<const uint8_t>(bytes, n));
  } else {
    buf_.insert(buf_.end(), bytes, bytes + n);
  }
  written_ += n;
}

void Writer::flush() {
  file_->write(buf_);
  buf_.clear();
}

void Writer::pad_to_alignment() {
  static const uint8_t zeros[256] = {};
  uint64_t pad = align_up(written_, alignment_) - written_;
  while (pad > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(pad, sizeof zeros));
    write_raw(zeros, n);
    pad -= n;
  }
}

void Writer::begin(const std::string& path) {
  if (file_) throw Error(codes::kInvalidArgument, "GGUF writer already started");
  path_ = path;
  file_ = std::make_unique<AtomicFileWriter>(path, [path](AtomicWriteStep step, const std::string&, int err) {
    throw Error(codes::kIo, (step == AtomicWriteStep::kCreate ? "cannot create " : "cannot write ") + path + ": " +
                                std::strerror(err));
  });
  buf_.reserve(kBufferBytes);

  std::vector<uint8_t> head;
  put<uint32_t>(head, kMagic);
  put<uint32_t>(head, 3);
  put<uint64_t>(head, tensors_.size());
  put<uint64_t>(head, kv_.size());
  for (const auto& [key, v] : kv_) {
    put_string(head, key);
    put<uint32_t>(head, static_cast<uint32_t>(v.type));
    put_payload(head, v.type, v);
  }
  for (const TensorInfo& t : tensors_) {
    put_string(head, t.name);
    put<uint32_t>(head, t.n_dims);
    for (uint32_t d = 0; d < t.n_dims; ++d) put<uint64_t>(head, static_cast<uint64_t>(t.ne[d]));
    put<uint32_t>(head, static_cast<uint32_t>(t.type));
    put<uint64_t>(head, t.offset);
  }
  write_raw(head.data(), head.size());
  pad_to_alignment();
  cur_ = 0;
  cur_done_ = 0;
}

void Writer::append(std::span<const uint8_t> bytes) {
  if (!file_) throw Error(codes::kInvalidArgument, "GGUF writer not started");
  while (!bytes.empty()) {
    if (cur_ >= tensors_.size()) throw Error(codes::kInvalidArgument, "more tensor bytes than declared");
    const TensorInfo& t = tensors_[cur_];
    const uint64_t n = std::min<uint64_t>(bytes.size(), t.size_bytes - cur_done_);
    write_raw(bytes.data(), static_cast<size_t>(n));
    bytes = bytes.subspan(static_cast<size_t>(n));
    cur_done_ += n;
    if (cur_done_ == t.size_bytes) {
      ++cur_;
      cur_done_ = 0;
      if (cur_ < tensors_.size()) pad_to_alignment();
    }
  }
}

void Writer::finish() {
  if (!file_) throw Error(codes::kInvalidArgument, "GGUF writer not started");
  if (cur_ != tensors_.size())
    throw Error(codes::kInvalidArgument, "tensor " + tensors_[cur_].name + " is incomplete");
  flush();
  // Even a failed commit ends the write: the temporary file is removed with `file`.
  const std::unique_ptr<AtomicFileWriter> file = std::move(file_);
  file->commit(0644);
}

}  // namespace a3s::power::gguf
