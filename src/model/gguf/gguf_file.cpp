// GGUF v2/v3 reader: maps the file read-only and validates every field against the file size before
// it is used. See gguf_file.h for the format and the error contract.
#include "model/gguf/gguf_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "a3s/power/error.h"
#include "base/printable.h"

namespace a3s::power::gguf {
namespace {

constexpr uint32_t kMagic = 0x46554747;  // "GGUF" read as a little-endian u32
constexpr uint64_t kDefaultAlignment = 32;
constexpr uint64_t kMaxKeyBytes = 65535;      // spec: keys are at most 2^16-1 bytes
constexpr uint64_t kMaxTensorNameBytes = 64;  // spec: tensor names are at most 64 bytes
constexpr uint32_t kMaxDims = 4;

std::string printable(std::string_view s, size_t max_chars = 96) { return shown_text(s, max_chars); }

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::UINT8:
      return "uint8";
    case ValueType::INT8:
      return "int8";
    case ValueType::UINT16:
      return "uint16";
    case ValueType::INT16:
      return "int16";
    case ValueType::UINT32:
      return "uint32";
    case ValueType::INT32:
      return "int32";
    case ValueType::FLOAT32:
      return "float32";
    case ValueType::BOOL:
      return "bool";
    case ValueType::STRING:
      return "string";
    case ValueType::ARRAY:
      return "array";
    case ValueType::UINT64:
      return "uint64";
    case ValueType::INT64:
      return "int64";
    case ValueType::FLOAT64:
      return "float64";
  }
  return "unknown";
}

bool is_integer(ValueType t) {
  switch (t) {
    case ValueType::UINT8:
    case ValueType::INT8:
    case ValueType::UINT16:
    case ValueType::INT16:
    case ValueType::UINT32:
    case ValueType::INT32:
    case ValueType::UINT64:
    case ValueType::INT64:
      return true;
    default:
      return false;
  }
}

bool is_float(ValueType t) {
  return t == ValueType::FLOAT32 || t == ValueType::FLOAT64;
}

// Encoded size of a fixed-size value, 0 for strings and arrays, nullopt for an unknown type id.
std::optional<uint64_t> fixed_size(uint32_t type_id) {
  switch (type_id) {
    case 0:
    case 1:
    case 7:
      return 1;  // u8 i8 bool
    case 2:
    case 3:
      return 2;  // u16 i16
    case 4:
    case 5:
    case 6:
      return 4;  // u32 i32 f32
    case 10:
    case 11:
    case 12:
      return 8;  // u64 i64 f64
    case 8:
    case 9:
      return 0;  // string, array
    default:
      return std::nullopt;
  }
}

// Smallest number of bytes one value of a type can occupy (for count plausibility checks).
uint64_t min_encoded_size(uint32_t type_id) {
  if (type_id == static_cast<uint32_t>(ValueType::STRING)) return 8;  // u64 length
  if (type_id == static_cast<uint32_t>(ValueType::ARRAY)) return 12;  // u32 type + u64 count
  return fixed_size(type_id).value_or(1);
}

// Owns a file descriptor.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// Thrown by Reader when a read lies inside the file but beyond the bytes given so far (a header-only
// parse from a prefix): the caller supplies at least `needed` bytes and parses again.
struct PrefixTooShort {
  uint64_t needed;
};

// Little-endian cursor over the file image. Every read checks the remaining bytes of the file
// (`size`) first; only the first `avail` bytes are at hand (all of them, except for a header-only
// parse).
class Reader {
 public:
  Reader(const uint8_t* base, uint64_t avail, uint64_t size, const std::string& name)
      : base_(base), avail_(avail), size_(size), name_(name) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return size_ - pos_; }

  [[noreturn]] void fail(const std::string& what, uint64_t at) const {
    throw Error(codes::kInvalidModel,
                "invalid GGUF file '" + name_ + "': " + what + " at offset " + std::to_string(at));
  }
  [[noreturn]] void fail(const std::string& what) const { fail(what, pos_); }

  void need(uint64_t n, const char* what) const {
    if (n > remaining()) {
      fail(std::string("truncated ") + what + " (needs " + std::to_string(n) + " bytes, " +
           std::to_string(remaining()) + " left)");
    }
  }

  uint64_t le(unsigned n, const char* what) {
    need(n, what);
    at_hand(n);
    uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= static_cast<uint64_t>(base_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  uint8_t u8(const char* what) { return static_cast<uint8_t>(le(1, what)); }
  uint16_t u16(const char* what) { return static_cast<uint16_t>(le(2, what)); }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(le(4, what)); }
  uint64_t u64(const char* what) { return le(8, what); }

  // A GGUF string: u64 length then that many bytes (no terminator).
  std::string str(const char* what, uint64_t max_len = std::numeric_limits<uint64_t>::max()) {
    const uint64_t at = pos_;
    const uint64_t len = u64(what);
    if (len > remaining()) {
      fail(std::string(what) + " length " + std::to_string(len) + " runs past end of file (" +
               std::to_string(remaining()) + " bytes left)",
           at);
    }
    if (len > max_len) {
      fail(std::string(what) + " length " + std::to_string(len) + " exceeds the limit of " +
               std::to_string(max_len) + " bytes",
           at);
    }
    at_hand(len);
    std::string s(reinterpret_cast<const char*>(base_ + pos_), static_cast<size_t>(len));
    pos_ += len;
    return s;
  }

 private:
  // After need(n): the n bytes at pos_ are inside the file; are they inside the prefix too?
  void at_hand(uint64_t n) const {
    if (n > avail_ - std::min(avail_, pos_)) throw PrefixTooShort{pos_ + n};
  }

  const uint8_t* base_;
  uint64_t avail_;
  uint64_t size_;
  uint64_t pos_ = 0;
  const std::string& name_;
};

class MetadataParser {
 public:
  explicit MetadataParser(Reader& r) : r_(r) {}

  Value value(uint32_t type_id, int depth, uint64_t type_at) {
    if (!fixed_size(type_id)) {
      r_.fail("unknown metadata value type " + std::to_string(type_id), type_at);
    }
    count(1);
    const auto type = static_cast<ValueType>(type_id);
    Value v{type, uint64_t{0}};
    switch (type) {
      case ValueType::UINT8:
        v.v = uint64_t{r_.u8("uint8 value")};
        break;
      case ValueType::INT8:
        v.v = int64_t{static_cast<int8_t>(r_.u8("int8 value"))};
        break;
      case ValueType::UINT16:
        v.v = uint64_t{r_.u16("uint16 value")};
        break;
      case ValueType::INT16:
        v.v = int64_t{static_cast<int16_t>(r_.u16("int16 value"))};
        break;
      case ValueType::UINT32:
        v.v = uint64_t{r_.u32("uint32 value")};
        break;
      case ValueType::INT32:
        v.v = int64_t{static_cast<int32_t>(r_.u32("int32 value"))};
        break;
      case ValueType::UINT64:
        v.v = r_.u64("uint64 value");
        break;
      case ValueType::INT64:
        v.v = static_cast<int64_t>(r_.u64("int64 value"));
        break;
      case ValueType::FLOAT32: {
        const uint32_t bits = r_.u32("float32 value");
        float f;
        std::memcpy(&f, &bits, sizeof f);
        v.v = static_cast<double>(f);
        break;
      }
      case ValueType::FLOAT64: {
        const uint64_t bits = r_.u64("float64 value");
        double d;
        std::memcpy(&d, &bits, sizeof d);
        v.v = d;
        break;
      }
      case ValueType::BOOL: {
        const uint64_t at = r_.pos();
        const uint8_t b = r_.u8("bool value");
        if (b > 1) r_.fail("bool value " + std::to_string(b) + " is neither 0 nor 1", at);
        v.v = b == 1;
        break;
      }
      case ValueType::STRING:
        v.v = r_.str("string value");
        break;
      case ValueType::ARRAY:
        v.v = array(depth + 1);
        break;
    }
    return v;
  }

 private:
  Array array(int depth) {
    const uint64_t at = r_.pos();
    if (depth > kMaxArrayDepth) {
      r_.fail("arrays nested deeper than " + std::to_string(kMaxArrayDepth) + " levels", at);
    }
    const uint32_t elem_id = r_.u32("array element type");
    if (!fixed_size(elem_id)) r_.fail("unknown array element type " + std::to_string(elem_id), at);
    const uint64_t n = r_.u64("array length");
    // Every element occupies at least min_encoded_size bytes, so the count must fit in what is left.
    if (n > r_.remaining() / min_encoded_size(elem_id)) {
      r_.fail("array of " + std::to_string(n) + " " + value_type_name(static_cast<ValueType>(elem_id)) +
                  " elements does not fit in the " + std::to_string(r_.remaining()) + " bytes left",
              at);
    }
    if (n > kMaxMetadataValues - total_) {
      r_.fail("array of " + std::to_string(n) + " elements exceeds the limit of " +
                  std::to_string(kMaxMetadataValues) + " metadata values",
              at);
    }
    Array a{static_cast<ValueType>(elem_id), {}};
    a.items.reserve(static_cast<size_t>(n));
    for (uint64_t i = 0; i < n; ++i) a.items.push_back(value(elem_id, depth, at));
    return a;
  }

  void count(uint64_t n) {
    total_ += n;
    if (total_ > kMaxMetadataValues) {
      r_.fail("more than " + std::to_string(kMaxMetadataValues) + " metadata values");
    }
  }

  Reader& r_;
  uint64_t total_ = 0;
};

}  // namespace

std::string shown_text(std::string_view s, size_t max_bytes) {
  PrintableStyle style;
  style.max_bytes = max_bytes;
  style.unprintable = Unprintable::kNonAscii;
  style.also_unprintable = "\\";
  style.hex_escape = true;
  style.mark_cut = true;
  return a3s::power::printable(s, style);
}

std::shared_ptr<File> File::make_empty() {
  // A local class of a member function may use File's private constructor; make_shared may not.
  struct Constructible : File {};
  return std::make_shared<Constructible>();
}

std::shared_ptr<File> File::open(const std::string& path) {
  const std::string shown = printable(path, 256);
  // O_NONBLOCK: opening a FIFO or device must not wait; it is refused below (reads of regular files
  // ignore the flag).
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.fd < 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot open model file '" + shown + "': " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) {
    const int err = errno;
    throw Error(codes::kIo, "cannot stat model file '" + shown + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) throw Error(codes::kIo, "model path '" + shown + "' is not a regular file");

  std::shared_ptr<File> f = make_empty();
  f->path_ = path;
  f->size_ = static_cast<size_t>(st.st_size);
  f->file_size_ = f->size_;
  if (f->size_ > 0) {
    void* m = ::mmap(nullptr, f->size_, PROT_READ, MAP_PRIVATE, fd.fd, 0);
    if (m == MAP_FAILED) {
      const int err = errno;
      throw Error(codes::kIo, "cannot map model file '" + shown + "': " + std::strerror(err));
    }
    f->map_ = m;  // owned from here on: ~File unmaps it, also when parse() throws
    f->base_ = static_cast<const uint8_t*>(m);
  }
  f->parse();
  return f;
}

std::shared_ptr<File> File::from_memory(std::span<const uint8_t> bytes, std::string name,
                                        std::shared_ptr<void> owner) {
  std::shared_ptr<File> f = make_empty();
  f->path_ = std::move(name);
  f->base_ = bytes.data();
  f->size_ = bytes.size();
  f->file_size_ = f->size_;
  f->owner_ = std::move(owner);
  f->parse();
  return f;
}

std::shared_ptr<File> File::from_prefix(const PrefixReader& read, uint64_t file_size, std::string name) {
  // Most headers (metadata with a vocabulary, tensor infos) fit in the first MiB; a larger one is
  // read again in a doubled prefix until it parses.
  uint64_t want = std::min<uint64_t>(file_size, uint64_t{1} << 20);
  for (;;) {
    auto prefix = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(want));
    read(0, *prefix);
    std::shared_ptr<File> f = make_empty();
    f->path_ = name;
    f->base_ = prefix->data();
    f->size_ = prefix->size();
    f->file_size_ = file_size;
    f->header_only_ = true;
    f->owner_ = prefix;
    try {
      f->parse();
      return f;
    } catch (const PrefixTooShort& more) {
      // needed <= file_size (Reader checks the file's bounds first), and needed > want.
      want = std::min(file_size, std::max(more.needed, want * 2));
    }
  }
}

File::~File() {
  if (map_ != nullptr) ::munmap(map_, size_);
}

void File::parse() {
  const std::string shown = printable(path_, 256);
  Reader r(base_, size_, file_size_, shown);

  // Header.
  if (file_size_ < 4) r.fail("truncated header (file is " + std::to_string(file_size_) + " bytes)", 0);
  const uint32_t magic = r.u32("magic");
  if (magic != kMagic) r.fail("bad magic (not a GGUF file)", 0);
  const uint32_t version = r.u32("header version");
  if (version == 1) r.fail("GGUF version 1 is not supported (convert the model to v3)", 4);
  if (version == 0x02000000u || version == 0x03000000u) {
    r.fail("big-endian GGUF is not supported", 4);
  }
  if (version != 2 && version != 3) r.fail("unsupported GGUF version " + std::to_string(version), 4);
  version_ = version;
  const uint64_t n_tensors = r.u64("header tensor count");
  const uint64_t n_kv = r.u64("header metadata count");

  // Metadata: each pair takes at least key length (8) + 1 key byte + type (4) + 1 value byte.
  if (n_kv > r.remaining() / 14) {
    r.fail("metadata count " + std::to_string(n_kv) + " does not fit in the file", 16);
  }
  // Each tensor info takes at least name length (8) + n_dims (4) + one dim (8) + type (4) + offset (8).
  if (n_tensors > r.remaining() / 32) {
    r.fail("tensor count " + std::to_string(n_tensors) + " does not fit in the file", 8);
  }
  kv_.reserve(static_cast<size_t>(n_kv));
  key_order_.reserve(static_cast<size_t>(n_kv));
  MetadataParser meta(r);
  uint64_t alignment_at = 0;  // where general.alignment's value type is stored, for errors
  for (uint64_t i = 0; i < n_kv; ++i) {
    const uint64_t key_at = r.pos();
    std::string key = r.str("metadata key", kMaxKeyBytes);
    if (key.empty()) r.fail("empty metadata key", key_at);
    if (kv_.count(key)) r.fail("duplicate metadata key '" + printable(key) + "'", key_at);
    const uint64_t type_at = r.pos();
    const uint32_t type_id = r.u32("metadata value type");
    Value v = meta.value(type_id, 0, type_at);
    if (key == "general.alignment") alignment_at = type_at;
    key_order_.push_back(key);
    kv_.emplace(std::move(key), std::move(v));
  }

  // Alignment of the data section and of every tensor offset.
  alignment_ = kDefaultAlignment;
  if (const Value* a = find("general.alignment")) {
    const uint64_t* u = std::get_if<uint64_t>(&a->v);
    const int64_t* s = std::get_if<int64_t>(&a->v);
    uint64_t al = 0;
    if (u) {
      al = *u;
    } else if (s && *s > 0) {
      al = static_cast<uint64_t>(*s);
    } else if (!s) {
      r.fail(std::string("general.alignment has type ") + value_type_name(a->type) + ", expected an integer",
             alignment_at);
    }
    if (al == 0 || (al & (al - 1)) != 0) {
      r.fail("general.alignment " + (s ? std::to_string(*s) : std::to_string(al)) + " is not a power of two",
             alignment_at);
    }
    alignment_ = al;
  }

  // Tensor infos.
  tensors_.reserve(static_cast<size_t>(n_tensors));
  tensor_index_.reserve(static_cast<size_t>(n_tensors));
  for (uint64_t i = 0; i < n_tensors; ++i) {
    const uint64_t at = r.pos();
    TensorInfo t;
    t.name = r.str("tensor name", kMaxTensorNameBytes);
    const std::string tn = "tensor '" + printable(t.name) + "'";
    if (tensor_index_.count(t.name)) r.fail("duplicate " + tn, at);
    const uint64_t dims_at = r.pos();
    t.n_dims = r.u32("tensor n_dims");
    if (t.n_dims == 0 || t.n_dims > kMaxDims) {
      r.fail(tn + " has n_dims " + std::to_string(t.n_dims) + " (must be 1..4)", dims_at);
    }
    int64_t n_elements = 1;
    for (uint32_t d = 0; d < t.n_dims; ++d) {
      const uint64_t ne_at = r.pos();
      const uint64_t ne = r.u64("tensor dimension");
      if (ne == 0 || ne > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        r.fail(tn + " has invalid dimension ne[" + std::to_string(d) + "] = " + std::to_string(ne), ne_at);
      }
      t.ne[d] = static_cast<int64_t>(ne);
      if (__builtin_mul_overflow(n_elements, t.ne[d], &n_elements)) {
        r.fail(tn + " element count overflows", ne_at);
      }
    }
    const uint64_t type_at = r.pos();
    const uint32_t type_id = r.u32("tensor type");
    const auto info = type_info(type_id);
    if (!info) {
      throw Error(codes::kUnsupportedType, "unsupported tensor type id " + std::to_string(type_id) + " for " +
                                               tn + " in '" + shown + "' at offset " +
                                               std::to_string(type_at));
    }
    if (!info->weight_type) {
      throw Error(codes::kUnsupportedType, std::string("unsupported tensor type ") + info->name + " (id " +
                                               std::to_string(type_id) + ", not a weight type) for " + tn +
                                               " in '" + shown + "' at offset " + std::to_string(type_at));
    }
    t.type = static_cast<TensorType>(type_id);
    if (t.ne[0] % info->block_size != 0) {
      r.fail(tn + " row of " + std::to_string(t.ne[0]) + " elements is not a multiple of the " + info->name +
                 " block size " + std::to_string(info->block_size),
             dims_at);
    }
    // Check the row size cannot wrap before asking row_size() for it.
    uint64_t row_bytes = 0;
    uint64_t size = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(t.ne[0] / info->block_size),
                               static_cast<uint64_t>(info->block_bytes), &row_bytes) ||
        __builtin_mul_overflow(row_bytes, static_cast<uint64_t>(t.n_rows()), &size)) {
      r.fail(tn + " byte size overflows", dims_at);
    }
    const auto rs = row_size(t.type, t.ne[0]);
    if (!rs || *rs != row_bytes) r.fail(tn + " has no valid row size", dims_at);
    t.size_bytes = size;
    const uint64_t off_at = r.pos();
    t.offset = r.u64("tensor offset");
    if (t.offset % alignment_ != 0) {
      r.fail(tn + " data offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
                 std::to_string(alignment_),
             off_at);
    }
    tensor_index_.emplace(t.name, tensors_.size());
    tensors_.push_back(std::move(t));
  }

  // Data section: starts at the next multiple of the alignment after the tensor infos.
  const uint64_t infos_end = r.pos();
  uint64_t padded = 0;
  if (__builtin_add_overflow(infos_end, alignment_ - 1, &padded)) r.fail("data section offset overflows");
  data_offset_ = padded - padded % alignment_;
  if (tensors_.empty()) {
    // Vocabulary-only files may end without the padding.
    data_offset_ = std::min<uint64_t>(data_offset_, file_size_);
    return;
  }
  if (data_offset_ > file_size_) {
    r.fail("data section at offset " + std::to_string(data_offset_) + " starts past end of file (size " +
               std::to_string(file_size_) + ")",
           infos_end);
  }

  const uint64_t data_bytes = file_size_ - data_offset_;
  for (auto& t : tensors_) {
    uint64_t end = 0;
    if (__builtin_add_overflow(t.offset, t.size_bytes, &end) || end > data_bytes) {
      throw Error(codes::kInvalidModel,
                  "invalid GGUF file '" + shown + "': tensor '" + printable(t.name) + "' data [" +
                      std::to_string(t.offset) + ", +" + std::to_string(t.size_bytes) +
                      ") runs past end of file (data section holds " + std::to_string(data_bytes) +
                      " bytes at offset " + std::to_string(data_offset_) + ")");
    }
    t.file_offset = data_offset_ + t.offset;
  }

  // No two tensors may share bytes.
  std::vector<size_t> order(tensors_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return tensors_[a].offset < tensors_[b].offset; });
  for (size_t i = 1; i < order.size(); ++i) {
    const TensorInfo& prev = tensors_[order[i - 1]];
    const TensorInfo& cur = tensors_[order[i]];
    if (cur.offset < prev.offset + prev.size_bytes) {
      throw Error(codes::kInvalidModel, "invalid GGUF file '" + shown + "': tensor '" + printable(cur.name) +
                                            "' at data offset " + std::to_string(cur.offset) +
                                            " overlaps tensor '" + printable(prev.name) + "'");
    }
  }
}

const Value* File::find(const std::string& key) const {
  auto it = kv_.find(key);
  return it == kv_.end() ? nullptr : &it->second;
}

const TensorInfo* File::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

namespace {

[[noreturn]] void wrong_type(const std::string& file, const std::string& key, const Value& v,
                             const char* expected) {
  std::string got = value_type_name(v.type);
  if (const Array* a = std::get_if<Array>(&v.v)) got += std::string(" of ") + value_type_name(a->elem_type);
  throw Error(codes::kInvalidModel, "invalid GGUF file '" + printable(file, 256) + "': metadata key '" +
                                        printable(key) + "' has type " + got + ", expected " + expected);
}

// Integer value as int64 (nullopt if the value is an integer that does not fit).
std::optional<int64_t> as_i64(const Value& v) {
  if (const auto* u = std::get_if<uint64_t>(&v.v)) {
    if (*u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(*u);
  }
  return std::get<int64_t>(v.v);
}

double as_f64(const Value& v) {
  if (const auto* d = std::get_if<double>(&v.v)) return *d;
  if (const auto* u = std::get_if<uint64_t>(&v.v)) return static_cast<double>(*u);
  return static_cast<double>(std::get<int64_t>(v.v));
}

}  // namespace

std::optional<std::string> File::get_string(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != ValueType::STRING) wrong_type(path_, key, *v, "string");
  return std::get<std::string>(v->v);
}

std::optional<uint64_t> File::get_u64(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (!is_integer(v->type)) wrong_type(path_, key, *v, "an unsigned integer");
  if (const auto* u = std::get_if<uint64_t>(&v->v)) return *u;
  const int64_t s = std::get<int64_t>(v->v);
  if (s < 0) wrong_type(path_, key, *v, "a non-negative integer");
  return static_cast<uint64_t>(s);
}

std::optional<int64_t> File::get_i64(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (!is_integer(v->type)) wrong_type(path_, key, *v, "an integer");
  auto i = as_i64(*v);
  if (!i) wrong_type(path_, key, *v, "an integer that fits in int64");
  return i;
}

std::optional<double> File::get_f64(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (!is_integer(v->type) && !is_float(v->type)) wrong_type(path_, key, *v, "a number");
  return as_f64(*v);
}

std::optional<bool> File::get_bool(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  if (v->type != ValueType::BOOL) wrong_type(path_, key, *v, "bool");
  return std::get<bool>(v->v);
}

std::optional<std::vector<std::string>> File::get_string_array(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  const Array* a = std::get_if<Array>(&v->v);
  if (!a || a->elem_type != ValueType::STRING) wrong_type(path_, key, *v, "array of string");
  std::vector<std::string> out;
  out.reserve(a->items.size());
  for (const Value& item : a->items) out.push_back(std::get<std::string>(item.v));
  return out;
}

std::optional<std::vector<double>> File::get_f64_array(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  const Array* a = std::get_if<Array>(&v->v);
  if (!a || (!is_float(a->elem_type) && !is_integer(a->elem_type))) {
    wrong_type(path_, key, *v, "array of numbers");
  }
  std::vector<double> out;
  out.reserve(a->items.size());
  for (const Value& item : a->items) out.push_back(as_f64(item));
  return out;
}

std::optional<std::vector<int64_t>> File::get_i64_array(const std::string& key) const {
  const Value* v = find(key);
  if (!v) return std::nullopt;
  const Array* a = std::get_if<Array>(&v->v);
  if (!a || !is_integer(a->elem_type)) wrong_type(path_, key, *v, "array of integers");
  std::vector<int64_t> out;
  out.reserve(a->items.size());
  for (const Value& item : a->items) {
    auto i = as_i64(item);
    if (!i) wrong_type(path_, key, *v, "array of integers that fit in int64");
    out.push_back(*i);
  }
  return out;
}

}  // namespace a3s::power::gguf
