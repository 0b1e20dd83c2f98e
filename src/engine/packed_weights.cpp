#include "engine/packed_weights.h"

#include <sys/mman.h>
#include <unistd.h>

namespace a3s::power::engine {

bool PackedWeights::packs(const std::vector<weights::TensorDesc>& descs, int id, int head) {
  if (id < 0 || static_cast<size_t>(id) >= descs.size()) return false;
  const weights::TensorDesc& d = descs[static_cast<size_t>(id)];
  const bool matrix = d.layer >= 0 ? d.n_dims == 2 || d.n_dims == 3 : id == head && d.n_dims == 2;
  return matrix && d.ne[3] == 1 && kernels::packed_weight_bytes(d.type, d.ne[1], d.ne[0]) > 0;
}

uint64_t PackedWeights::plane_panel_bytes(const weights::TensorDesc& d) {
  return kernels::packed_weight_bytes(d.type, d.ne[1], d.ne[0]);
}

uint64_t PackedWeights::layout(const std::vector<weights::TensorDesc>& descs, int head, std::vector<uint64_t>* offsets) {
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  if (offsets != nullptr) offsets->assign(descs.size(), 0);
  uint64_t total = 0;
  for (size_t id = 0; id < descs.size(); ++id) {
    if (!packs(descs, static_cast<int>(id), head)) continue;
    if (offsets != nullptr) (*offsets)[id] = total;
    const uint64_t n = plane_panel_bytes(descs[id]) * static_cast<uint64_t>(descs[id].ne[2]);
    total += (n + page - 1) / page * page;
  }
  return total;
}

uint64_t PackedWeights::extra_bytes(const std::vector<weights::TensorDesc>& descs, int head) {
  uint64_t rows = 0;
  for (size_t id = 0; id < descs.size(); ++id)
    if (packs(descs, static_cast<int>(id), head)) rows += descs[id].size_bytes;
  const uint64_t huge = crypto::LockedBuffer::kHugePageBytes;
  const uint64_t mapped = (layout(descs, head, nullptr) + huge - 1) / huge * huge;
  return mapped > rows ? mapped - rows : 0;
}

namespace {
// Drops the whole pages of [p, p + n) of a read-only file mapping from the process (they are read
// again from the file if touched). Under a process-wide memory lock (tee_mode: mlockall with
// MCL_ONFAULT) the packing faulted them in locked, and MADV_DONTNEED refuses locked pages: they are
// unlocked first (the plaintext file's bytes; the panels stay locked). Best effort: the rows stay
// usable either way.
void release_mapped_pages(const uint8_t* p, uint64_t n) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(p) + page - 1) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(p) + n) / page * page;
  if (end <= begin) return;
  munlock(reinterpret_cast<void*>(begin), end - begin);
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}
}  // namespace

PackedWeights::PackedWeights(weights::WeightSource& source, ThreadPool& pool, int head) {
  const std::vector<weights::TensorDesc>& descs = source.tensors();
  by_id_.resize(descs.size());
  // One buffer holds every panel, each at a page-aligned offset, so that the buffer can be backed by
  // huge pages without rounding every tensor up to 2 MiB.
  std::vector<uint64_t> offset;
  const uint64_t total = layout(descs, head, &offset);
  if (total == 0) return;
  panels_ = crypto::LockedBuffer(total, "packed weights", crypto::LockedBuffer::Pages::kHuge);
  for (size_t id = 0; id < descs.size(); ++id) {
    const weights::TensorDesc& d = descs[id];
    if (!packs(descs, static_cast<int>(id), head)) continue;
    uint8_t* panel = panels_.data() + offset[id];
    const uint64_t per_plane = plane_panel_bytes(d);
    if (d.layer < 0) {  // the output head: a global tensor, its rows in the mapping
      const uint8_t* rows = source.read_rows(static_cast<int>(id), 0, d.n_rows(), {});
      by_id_[id].isa = kernels::pack_weight(d.type, rows, d.ne[1], d.ne[0], panel, pool);
      release_mapped_pages(rows, d.size_bytes);
    } else {
      const weights::LayerLease lease = source.acquire_layer(d.layer);
      // A stacked tensor (the experts of a mixture-of-experts block) is packed plane by plane, each
      // plane's panels after the previous one's.
      for (int64_t e = 0; e < d.ne[2]; ++e) {
        const uint8_t* rows = d.stacked() ? lease.plane(static_cast<int>(id), e) : lease.data(static_cast<int>(id));
        by_id_[id].isa = kernels::pack_weight(d.type, rows, d.ne[1], d.ne[0], panel + static_cast<uint64_t>(e) * per_plane, pool);
        release_mapped_pages(rows, d.plane_bytes());
      }
    }
    by_id_[id].bytes = panel;
    by_id_[id].plane_bytes = per_plane;
    bytes_ += per_plane * static_cast<uint64_t>(d.ne[2]);
  }
  panels_.protect_read_only();
}

const PackedWeights::Tensor* PackedWeights::Tensor::plane(int64_t e, Tensor& one) const {
  one = *this;
  one.bytes += static_cast<uint64_t>(e) * plane_bytes;
  return &one;
}

const PackedWeights::Tensor* PackedWeights::find(int id) const {
  if (id < 0 || static_cast<size_t>(id) >= by_id_.size() || by_id_[static_cast<size_t>(id)].bytes == nullptr)
    return nullptr;
  return &by_id_[static_cast<size_t>(id)];
}

}  // namespace a3s::power::engine
