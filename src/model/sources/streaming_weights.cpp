#include "model/sources/streaming_weights.h"

#include <algorithm>

#include "a3s/power/error.h"

namespace a3s::power::weights {

StreamingWeights::StreamingWeights(std::vector<TensorDesc> descs, std::vector<uint64_t> offsets,
                                   std::shared_ptr<ByteReader> reader, size_t read_chunk_bytes)
    : offsets_(std::move(offsets)), reader_(std::move(reader)), read_chunk_(read_chunk_bytes) {
  if (!reader_ || offsets_.size() != descs.size() || read_chunk_ == 0)
    throw Error(codes::kInternal, "streaming weights: bad setup");
  for (const TensorDesc& d : descs) {
    if (d.name.rfind("blk.", 0) != 0) continue;
    if (d.stacked())
      plane_bytes_ = std::max<size_t>(plane_bytes_, d.plane_bytes());
    else
      buffer_bytes_ = std::max<size_t>(buffer_bytes_, d.size_bytes);
  }
  set_tensors(std::move(descs));
  for (Slot& s : slots_) s.bytes = crypto::LockedBuffer(std::max<size_t>(buffer_bytes_, 1), "streamed weights");
  if (plane_bytes_ > 0) plane_ = crypto::LockedBuffer(plane_bytes_, "streamed expert weights");
  position_.assign(tensors().size(), -1);
  io_ = std::thread([this] { io_loop(); });
}

StreamingWeights::~StreamingWeights() {
  stopping_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  io_.join();
}

void StreamingWeights::set_access_order(std::vector<int> ids) {
  std::lock_guard<std::mutex> lock(mu_);
  order_ = std::move(ids);
  std::fill(position_.begin(), position_.end(), -1);
  for (size_t i = 0; i < order_.size(); ++i) position_.at(static_cast<size_t>(order_[i])) = static_cast<int>(i);
}

void StreamingWeights::load(int id, Slot& slot) {
  const TensorDesc& d = desc(id);
  reader_->read(offsets_[static_cast<size_t>(id)], {slot.bytes.data(), static_cast<size_t>(d.size_bytes)});
  bytes_read_.fetch_add(d.size_bytes, std::memory_order_relaxed);
}

void StreamingWeights::read_chunks(const ReadJob& job) {
  Slot& slot = *job.slot;
  const size_t size = static_cast<size_t>(desc(job.id).size_bytes);
  const uint64_t base = offsets_[static_cast<size_t>(job.id)];
  for (;;) {
    if (stopping_.load(std::memory_order_relaxed)) return;  // the source is being destroyed
    uint64_t v = slot.claim.load(std::memory_order_relaxed);
    size_t c = 0;
    for (;;) {
      c = static_cast<size_t>(v & 0xFFFFFFFFu);
      if (static_cast<uint32_t>(v >> 32) != job.generation || c >= job.n_chunks) return;
      if (slot.claim.compare_exchange_weak(v, v + 1, std::memory_order_relaxed)) break;
    }
    const size_t off = c * read_chunk_;
    const size_t len = std::min(read_chunk_, size - off);
    std::exception_ptr err;
    try {
      reader_->read(base + off, {slot.bytes.data() + off, len});
      bytes_read_.fetch_add(len, std::memory_order_relaxed);
    } catch (...) {
      err = std::current_exception();
    }
    // The lock also publishes the chunk's bytes to the thread that takes the tensor.
    std::lock_guard<std::mutex> lock(mu_);
    if (err && !slot.error) slot.error = err;
    if (slot.generation == job.generation && ++slot.chunks_done == job.n_chunks) {
      pending_slot_ = -1;
      cv_.notify_all();
    }
  }
}

void StreamingWeights::io_loop() {
  std::unique_lock<std::mutex> lock(mu_);
  uint32_t served = 0;  // the read this thread worked on last (another reader may finish it)
  for (;;) {
    cv_.wait(lock, [this, &served] { return stop_ || (pending_slot_ >= 0 && read_generation_ != served); });
    if (stop_) return;
    served = read_generation_;
    Slot& slot = slots_[pending_slot_];
    const ReadJob job{&slot, slot.generation, slot.id, slot.n_chunks};
    lock.unlock();
    read_chunks(job);
    lock.lock();
  }
}

const uint8_t* StreamingWeights::layer_data(int, int id) {
  std::unique_lock<std::mutex> lock(mu_);
  // A slot may only be refilled once its read has finished; help with the chunks left meanwhile.
  if (pending_slot_ >= 0) {
    Slot& pending = slots_[pending_slot_];
    const ReadJob job{&pending, pending.generation, pending.id, pending.n_chunks};
    lock.unlock();
    read_chunks(job);
    lock.lock();
  }
  cv_.wait(lock, [this] { return pending_slot_ < 0; });
  int s = slots_[0].id == id ? 0 : slots_[1].id == id ? 1 : -1;
  if (s < 0 || slots_[s].error) {
    // Not prefetched (first use, or an access outside the order): read it now into the slot that
    // does not hold the tensor handed out last.
    s = 1 - last_slot_;
    Slot& slot = slots_[s];
    slot.id = -1;
    slot.error = nullptr;
    lock.unlock();
    load(id, slot);  // throws io_error; the slot then holds nothing
    lock.lock();
    slot.id = id;
  }
  last_slot_ = s;
  // Prefetch the next tensor of the access order into the other slot.
  const int pos = position_[static_cast<size_t>(id)];
  if (pos >= 0 && !order_.empty()) {
    const int next = order_[(static_cast<size_t>(pos) + 1) % order_.size()];
    Slot& other = slots_[1 - s];
    if (next != id && (other.id != next || other.error)) {
      other.id = next;
      other.error = nullptr;
      other.n_chunks = (static_cast<size_t>(desc(next).size_bytes) + read_chunk_ - 1) / read_chunk_;
      other.chunks_done = 0;
      if (other.n_chunks > 0) {  // an empty tensor is ready as it is
        other.generation = ++read_generation_;
        other.claim.store(static_cast<uint64_t>(other.generation) << 32, std::memory_order_relaxed);
        pending_slot_ = 1 - s;
        cv_.notify_all();
      }
    }
  }
  return slots_[s].bytes.data();
}

const uint8_t* StreamingWeights::layer_plane(int il, int id, int64_t plane) {
  const TensorDesc& d = desc(id);
  if (!d.stacked()) return layer_data(il, id);  // a single plane is the whole tensor (plane 0)
  const size_t n = static_cast<size_t>(d.plane_bytes());
  if (n > plane_bytes_) throw Error(codes::kInternal, "plane buffer too small for " + d.name);
  reader_->read(offsets_[static_cast<size_t>(id)] + static_cast<uint64_t>(plane) * n, {plane_.data(), n});
  bytes_read_.fetch_add(n, std::memory_order_relaxed);
  return plane_.data();
}

const uint8_t* StreamingWeights::read_rows(int id, int64_t row0, int64_t n_rows, std::span<uint8_t> scratch) {
  check_rows(id, row0, n_rows);
  const TensorDesc& d = desc(id);
  const size_t n = static_cast<size_t>(n_rows) * d.row_bytes;
  if (scratch.size() < n) throw Error(codes::kInternal, "row scratch too small for " + d.name);
  reader_->read(offsets_[static_cast<size_t>(id)] + static_cast<uint64_t>(row0) * d.row_bytes, scratch.first(n));
  bytes_read_.fetch_add(n, std::memory_order_relaxed);
  return scratch.data();
}

}  // namespace a3s::power::weights
