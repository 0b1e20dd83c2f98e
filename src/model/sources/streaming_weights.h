// StreamingWeights: the `stream` WeightSource. No tensor of a block stays in memory: each one is read
// from storage into one of two reusable buffers when the forward pass asks for it, and the next
// tensor of the access order (set_access_order) is read on an I/O thread meanwhile (double
// buffering), so storage reads overlap compute. That read is split into chunks (read_chunk_bytes): a caller
// that asks for the tensor before it is complete reads the chunks nobody has claimed yet instead of
// waiting, so when storage is the bottleneck two threads copy at once. Global tensors are read by rows into the caller's
// scratch: the token embeddings one row per token, the output head in row chunks.
//
// Stacked (3-D) block tensors, a mixture-of-experts layer's experts, are never read whole: a
// lease's plane() reads one plane (one expert) into a third buffer, when the forward pass routes a
// token to it.
//
// Memory: two buffers of the largest block tensor that is not stacked, one of the largest plane of
// a stacked one (plus the caller's row scratch), locked when
// RLIMIT_MEMLOCK allows, excluded from core dumps and wiped when the source is destroyed. A pointer from a
// lease stays valid until the next lease data() call (the buffer it points into is then refilled).
// Errors: Error(codes::kIo) from the reader (rethrown on the thread that asks for the tensor).
#pragma once

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "crypto/secure_memory.h"
#include "model/sources/byte_reader.h"
#include "model/sources/weight_source.h"

namespace a3s::power::weights {

class StreamingWeights final : public WeightSource {
 public:
  static constexpr size_t kDefaultReadChunk = size_t{1} << 20;

  // descs/offsets: every tensor and the absolute offset of its bytes in the reader. read_chunk_bytes
  // (> 0): the piece of a prefetch one reader claims at a time.
  StreamingWeights(std::vector<TensorDesc> descs, std::vector<uint64_t> offsets, std::shared_ptr<ByteReader> reader,
                   size_t read_chunk_bytes = kDefaultReadChunk);
  ~StreamingWeights() override;

  const uint8_t* read_rows(int id, int64_t row0, int64_t n_rows, std::span<uint8_t> scratch) override;
  bool rows_need_scratch() const override { return true; }
  void set_access_order(std::vector<int> ids) override;
  uint64_t bytes_read() const override { return bytes_read_.load(std::memory_order_relaxed); }

  // Bytes of each of the two tensor buffers, and of the plane buffer (0 without stacked tensors).
  size_t buffer_bytes() const { return buffer_bytes_; }
  size_t plane_buffer_bytes() const { return plane_bytes_; }

 protected:
  void do_acquire_layer(int) override {}
  void do_release_layer(int) override {}
  const uint8_t* layer_data(int il, int id) override;
  const uint8_t* layer_plane(int il, int id, int64_t plane) override;

 private:
  struct Slot {
    crypto::LockedBuffer bytes;  // plaintext weights: kept out of core dumps, wiped when freed
    int id = -1;  // tensor held (or being read while pending_slot_ names this slot)
    std::exception_ptr error;
    // The read in progress while pending_slot_ names this slot (guarded by mu_, except `claim`).
    // `claim` packs the read's generation (high 32 bits) and its next unclaimed chunk (low 32 bits),
    // so a reader still holding an earlier read of this slot can never take a chunk of a later one.
    uint32_t generation = 0;
    size_t n_chunks = 0;
    size_t chunks_done = 0;
    std::atomic<uint64_t> claim{0};
  };
  // What a reader needs of the read it works on, taken under mu_.
  struct ReadJob {
    Slot* slot;
    uint32_t generation;
    int id;
    size_t n_chunks;
  };

  void load(int id, Slot& slot);  // synchronous read on the calling thread
  // Reads unclaimed chunks of `job` until none is left; whoever completes the last chunk ends the
  // read (pending_slot_ = -1) and wakes the waiters.
  void read_chunks(const ReadJob& job);
  void io_loop();

  std::vector<uint64_t> offsets_;
  std::shared_ptr<ByteReader> reader_;
  size_t buffer_bytes_ = 0;
  size_t read_chunk_ = kDefaultReadChunk;
  std::vector<int> order_;     // access order of block tensors
  std::vector<int> position_;  // per tensor id: index in order_, or -1
  Slot slots_[2];
  size_t plane_bytes_ = 0;
  crypto::LockedBuffer plane_;  // the plane handed out last (read on the calling thread)
  int last_slot_ = 1;          // slot of the most recently handed-out tensor
  std::atomic<uint64_t> bytes_read_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  int pending_slot_ = -1;      // slot the I/O thread should fill, -1 = none
  uint32_t read_generation_ = 0;  // counts the reads handed to the I/O thread
  bool stop_ = false;
  std::atomic<bool> stopping_{false};  // read_chunks gives up (destruction)
  std::thread io_;
};

}  // namespace a3s::power::weights
