// WeightSource: how the engine reaches model weights.
//
// The graph never touches a file mapping directly. It names tensors once (at load) and then reads
// their bytes through this interface in two ways:
//   * per layer: `acquire_layer(il)` returns a LayerLease; while the lease lives, `lease.data(id)`
//     gives the bytes of every tensor of block il ("blk.<il>.*"), and `lease.plane(id, e)` one plane
//     of a stacked (3-D) tensor such as expert e of a mixture-of-experts layer. A streaming source
//     reads each tensor (or plane) when asked; a resident source just hands out pointers.
//   * by rows: `read_rows(id, row0, n_rows, scratch)` gives `n_rows` consecutive rows of a global
//     tensor (token embeddings, the output head, the final norm), either pointing into resident
//     memory or copied into `scratch` (which must hold n_rows * row_bytes bytes).
//
// Tensor layout is GGUF's: ne[0] elements per row (fastest), rows = ne[1]*ne[2]*ne[3], each row
// `row_bytes` bytes of `type` blocks (src/model/gguf/tensor_type.h). Errors: Error(codes::kInvalidArgument)
// for an unknown id or a row range out of bounds, Error(codes::kIo) if bytes cannot be read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/gguf/tensor_type.h"

namespace a3s::power::gguf { class File; }

namespace a3s::power::weights {

struct TensorDesc {
  std::string name;
  TensorType type = TensorType::F32;
  int n_dims = 0;
  std::array<int64_t, 4> ne{1, 1, 1, 1};
  size_t row_bytes = 0;   // bytes of one row of ne[0] elements
  uint64_t size_bytes = 0;
  int layer = -1;         // block index parsed from "blk.<il>.", -1 for global tensors
  int64_t n_rows() const { return ne[1] * ne[2] * ne[3]; }
  // Stacked matrices (ne[2] > 1: a mixture-of-experts layer's experts, one plane of ne[1] rows each).
  bool stacked() const { return ne[2] > 1 || ne[3] > 1; }
  uint64_t plane_bytes() const { return static_cast<uint64_t>(ne[1]) * row_bytes; }
};

class WeightSource;

// Descriptors of every tensor of a GGUF file, in file order (throws Error(codes::kInvalidModel) for a row
// that is not a whole number of blocks).
std::vector<TensorDesc> tensor_descs(const gguf::File& file);

// Grants access to one layer's tensors for its lifetime (move-only, RAII release).
class LayerLease {
 public:
  LayerLease() = default;
  LayerLease(WeightSource* src, int layer) : src_(src), layer_(layer) {}
  LayerLease(LayerLease&& o) noexcept : src_(o.src_), layer_(o.layer_) { o.src_ = nullptr; }
  LayerLease& operator=(LayerLease&& o) noexcept;
  LayerLease(const LayerLease&) = delete;
  LayerLease& operator=(const LayerLease&) = delete;
  ~LayerLease();

  int layer() const { return layer_; }
  // Bytes of tensor `id`, which must belong to this layer and not be stacked (TensorDesc::stacked).
  // A streaming source may reuse the memory of earlier tensors: the pointer stays valid until the
  // next data() call on any lease of the same source.
  const uint8_t* data(int id) const;
  // Bytes of plane `plane` (ne[1] rows; one expert) of the stacked tensor `id` of this layer. A
  // streaming source reads just that plane; the pointer stays valid until the next plane() call.
  const uint8_t* plane(int id, int64_t plane) const;

 private:
  WeightSource* src_ = nullptr;
  int layer_ = -1;
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;

  const std::vector<TensorDesc>& tensors() const { return tensors_; }
  const TensorDesc& desc(int id) const;
  std::optional<int> find(std::string_view name) const;
  int n_layers() const { return n_layers_; }  // 1 + highest block index seen

  LayerLease acquire_layer(int il);

  // Rows [row0, row0+n_rows) of a global tensor (see above). Returns a pointer to
  // n_rows * row_bytes bytes, valid until the next read_rows call or the source's end.
  virtual const uint8_t* read_rows(int id, int64_t row0, int64_t n_rows, std::span<uint8_t> scratch) = 0;
  // True when read_rows copies into `scratch` (callers must then size it).
  virtual bool rows_need_scratch() const = 0;

  // The order in which one forward pass asks for layer tensors (ids; every block's tensors in use
  // order), so a streaming source can read the next tensor while the current one is in use. Sources
  // that keep everything resident ignore it.
  virtual void set_access_order(std::vector<int> /*ids*/) {}
  // Bytes read from storage so far (0 for a resident source).
  virtual uint64_t bytes_read() const { return 0; }

 protected:
  friend class LayerLease;
  // Builds the index (name → id, layer membership). Called once by implementations.
  void set_tensors(std::vector<TensorDesc> tensors);
  virtual void do_acquire_layer(int il) = 0;
  virtual void do_release_layer(int il) = 0;
  virtual const uint8_t* layer_data(int il, int id) = 0;
  // Plane `plane` of a stacked tensor; the default points into layer_data (resident sources).
  virtual const uint8_t* layer_plane(int il, int id, int64_t plane);

  void check_rows(int id, int64_t row0, int64_t n_rows) const;

 private:
  std::vector<TensorDesc> tensors_;
  std::unordered_map<std::string, int> index_;
  int n_layers_ = 0;
};

}  // namespace a3s::power::weights
