// PackedWeights: the block matrices of a resident model that the active ISA multiplies faster from
// its panel layout (kernels.h, pack_weight; Q4_0, Q8_0, Q4_K and Q6_K on avx512), packed once at load.
//
// Only for a plaintext file mapped read-only (residency.h: WeightBytes::kPlainFile): the packing
// reads each matrix from the mapping after the file's bytes are what the model is known by (its
// digest and any measurement are taken over the file, not over the panels), and then drops the
// matrix's pages from the process (madvise MADV_DONTNEED; they are read again from the file only if
// the rows are needed, e.g. after force_isa to an ISA without this layout). The panels are
// one LockedBuffer: locked where RLIMIT_MEMLOCK allows, excluded from core dumps, wiped when freed,
// and backed by transparent huge pages where the kernel gives them (decode reads every panel once a
// token: 2 MiB pages take the TLB misses out of that stream).
// Memory: extra_bytes() more than the rows (with the pages' and the huge page's rounding), counted by the memory plan (memory_plan.h).
// Stacked tensors (a mixture-of-experts block's experts) are packed plane by plane; of the global
// tensors only the output head is packed (`head`: its id, token_embd's when the embeddings are tied;
// -1 for none): decode reads it once a token like a layer's matrix, and for a large vocabulary it is
// a good part of the model (the tied head of qwen3-0.6b, 151936 × 1024, is a third of its bytes).
#pragma once

#include <cstdint>
#include <vector>

#include "base/thread_pool.h"
#include "crypto/secure_memory.h"
#include "kernels/kernels.h"
#include "model/sources/weight_source.h"

namespace a3s::power::engine {

class PackedWeights {
 public:
  struct Tensor {
    const uint8_t* bytes = nullptr;
    kernels::Isa isa{};       // whose layout the panels are in
    uint64_t plane_bytes = 0;  // bytes of one plane's panels (stacked tensors: the planes follow each other)

    // Plane e of a stacked tensor, written to `one`.
    const Tensor* plane(int64_t e, Tensor& one) const;
  };

  // Whether tensor `id` of `descs` is packed: a layer's block matrix (a stacked one plane by plane)
  // or the output head `head`, in a type the active ISA packs.
  static bool packs(const std::vector<weights::TensorDesc>& descs, int id, int head);
  static uint64_t plane_panel_bytes(const weights::TensorDesc& d);  // of one plane (of the matrix)
  // The bytes of the packed tensors' panels beyond their rows.
  static uint64_t extra_bytes(const std::vector<weights::TensorDesc>& descs, int head);

  // Bytes of the panels of every tensor `packs` accepts, each rounded up to whole pages; offsets
  // (when not null): per tensor id, where its panels start in that layout (0 for the others).
  static uint64_t layout(const std::vector<weights::TensorDesc>& descs, int head, std::vector<uint64_t>* offsets);

  // Packs every tensor `packs` accepts from `source` (a resident source whose tensors point into a
  // file mapping), on `pool`.
  PackedWeights(weights::WeightSource& source, ThreadPool& pool, int head);

  // The packed form of tensor `id`, or null when it is not packed.
  const Tensor* find(int id) const;
  uint64_t bytes() const { return bytes_; }

 private:
  crypto::LockedBuffer panels_;  // every tensor's panels, page-aligned, huge pages where the kernel gives them
  std::vector<Tensor> by_id_;  // per tensor id; bytes null when not packed
  uint64_t bytes_ = 0;
};

}  // namespace a3s::power::engine
