#include "model/sources/weight_source.h"

#include <algorithm>
#include <charconv>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"

namespace a3s::power::weights {

LayerLease& LayerLease::operator=(LayerLease&& o) noexcept {
  if (this != &o) {
    if (src_) src_->do_release_layer(layer_);
    src_ = o.src_;
    layer_ = o.layer_;
    o.src_ = nullptr;
  }
  return *this;
}

LayerLease::~LayerLease() {
  if (src_) src_->do_release_layer(layer_);
}

const uint8_t* LayerLease::data(int id) const {
  if (!src_) throw Error(codes::kInternal, "layer lease is empty");
  const TensorDesc& d = src_->desc(id);
  if (d.layer != layer_) throw Error(codes::kInvalidArgument, "tensor " + d.name + " is not in the leased layer");
  if (d.stacked()) throw Error(codes::kInternal, "tensor " + d.name + " is read by plane");
  return src_->layer_data(layer_, id);
}

const uint8_t* LayerLease::plane(int id, int64_t plane) const {
  if (!src_) throw Error(codes::kInternal, "layer lease is empty");
  const TensorDesc& d = src_->desc(id);
  if (d.layer != layer_) throw Error(codes::kInvalidArgument, "tensor " + d.name + " is not in the leased layer");
  if (plane < 0 || plane >= d.ne[2] * d.ne[3])
    throw Error(codes::kInvalidArgument, "plane out of range for tensor " + d.name);
  return src_->layer_plane(layer_, id, plane);
}

const uint8_t* WeightSource::layer_plane(int il, int id, int64_t plane) {
  return layer_data(il, id) + static_cast<uint64_t>(plane) * desc(id).plane_bytes();
}

namespace {
// The block index of "blk.<il>.<rest>", or -1 for a global tensor.
int layer_of(std::string_view n) {
  constexpr std::string_view kPrefix = "blk.";
  if (n.substr(0, kPrefix.size()) != kPrefix) return -1;
  n.remove_prefix(kPrefix.size());
  int il = -1;
  auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), il);
  if (ec == std::errc() && p != n.data() + n.size() && *p == '.' && il >= 0 && il < (1 << 20)) return il;
  return -1;
}
}  // namespace

std::vector<TensorDesc> tensor_descs(const gguf::File& file) {
  std::vector<TensorDesc> descs;
  descs.reserve(file.tensors().size());
  for (const gguf::TensorInfo& t : file.tensors()) {
    TensorDesc d;
    d.name = t.name;
    d.type = t.type;
    d.n_dims = static_cast<int>(t.n_dims);
    d.ne = t.ne;
    auto rb = row_size(t.type, t.ne[0]);
    if (!rb) throw Error(codes::kInvalidModel, "tensor " + t.name + ": row length is not a multiple of the block size");
    d.row_bytes = *rb;
    d.size_bytes = t.size_bytes;
    d.layer = layer_of(d.name);
    descs.push_back(std::move(d));
  }
  return descs;
}

const TensorDesc& WeightSource::desc(int id) const {
  if (id < 0 || static_cast<size_t>(id) >= tensors_.size())
    throw Error(codes::kInvalidArgument, "tensor id out of range");
  return tensors_[static_cast<size_t>(id)];
}

std::optional<int> WeightSource::find(std::string_view name) const {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

LayerLease WeightSource::acquire_layer(int il) {
  if (il < 0 || il >= n_layers_) throw Error(codes::kInvalidArgument, "layer index out of range");
  do_acquire_layer(il);
  return LayerLease(this, il);
}

void WeightSource::check_rows(int id, int64_t row0, int64_t n_rows) const {
  const TensorDesc& d = desc(id);
  if (d.layer >= 0) throw Error(codes::kInvalidArgument, "row reads are for global tensors: " + d.name);
  if (row0 < 0 || n_rows < 0 || row0 > d.n_rows() || n_rows > d.n_rows() - row0)
    throw Error(codes::kInvalidArgument, "row range out of bounds for tensor " + d.name);
}

void WeightSource::set_tensors(std::vector<TensorDesc> tensors) {
  tensors_ = std::move(tensors);
  index_.clear();
  n_layers_ = 0;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    TensorDesc& d = tensors_[i];
    d.layer = layer_of(d.name);
    n_layers_ = std::max(n_layers_, d.layer + 1);
    index_.emplace(d.name, static_cast<int>(i));
  }
}

}  // namespace a3s::power::weights
