#include "engine/step_batcher.h"

#include <algorithm>

#include "engine/model_impl.h"

namespace a3s::power::engine {

StepBatcher::StepBatcher(const ModelImpl& model) : m_(model) {}

StepBatcher::~StepBatcher() = default;

int StepBatcher::n_batch() const { return std::max(1, m_.options().n_batch); }

void StepBatcher::run(const Forward::Segment& segment, const void* owner) {
  Pending p{segment, owner, false, nullptr};
  std::unique_lock lk(mu_);
  if (std::find(active_.begin(), active_.end(), owner) == active_.end()) active_.push_back(owner);
  queue_.push_back(&p);
  cv_.notify_all();
  while (!p.done) {
    if (!busy_ && !paused_) {
      lead(lk);
    } else {
      cv_.wait(lk);
    }
  }
  if (p.error) std::rethrow_exception(p.error);
}

void StepBatcher::leave(const void* owner) {
  std::lock_guard lk(mu_);
  std::erase(active_, owner);
  cv_.notify_all();
}

bool StepBatcher::all_active_waiting() const {
  for (const void* o : active_)
    if (std::none_of(queue_.begin(), queue_.end(), [o](const Pending* p) { return p->owner == o; })) return false;
  return true;
}

void StepBatcher::lead(std::unique_lock<std::mutex>& lk) {
  busy_ = true;
  // Give the active sequences that are between two steps (sampling) a moment to come back.
  if (!all_active_waiting()) {
    const auto grace = std::min<std::chrono::steady_clock::duration>(kMaxGrace, last_step_ / 4);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (!all_active_waiting() && cv_.wait_until(lk, deadline) != std::cv_status::timeout) {
    }
  }

  // A step of prompts alone (nothing decoding) waits a moment for more prompts (step_batcher.h).
  if (std::all_of(queue_.begin(), queue_.end(), [](const Pending* p) { return p->seg.tokens.size() > 1; }) &&
      all_active_waiting()) {
    const auto window = formation_for_testing_.count() >= 0
                            ? std::chrono::steady_clock::duration(formation_for_testing_)
                            : std::min<std::chrono::steady_clock::duration>(kFormation, last_step_ / 8);
    const auto deadline = std::chrono::steady_clock::now() + window;
    const auto queued_tokens = [this] {
      size_t n = 0;
      for (const Pending* p : queue_) n += p->seg.tokens.size();
      return n;
    };
    while (queued_tokens() < static_cast<size_t>(n_batch()) && cv_.wait_until(lk, deadline) != std::cv_status::timeout) {
    }
  }

  // Compose: decode tokens first, then prefill chunks in arrival order (the last one maybe split).
  struct Part {
    Pending* p;
    int k;  // tokens of p taken
  };
  std::vector<Part> parts;
  std::vector<Forward::Segment> segs;
  int budget = n_batch();
  for (int pass = 0; pass < 2 && budget > 0; ++pass) {
    for (Pending* p : queue_) {
      const int len = static_cast<int>(p->seg.tokens.size());
      if ((pass == 0) != (len == 1) || budget == 0) continue;
      const int k = std::min(len, budget);
      budget -= k;
      Forward::Segment part = p->seg;
      part.tokens = p->seg.tokens.first(static_cast<size_t>(k));
      part.n_out = std::max(0, k - (len - p->seg.n_out));
      parts.push_back({p, k});
      segs.push_back(part);
    }
  }
  lk.unlock();

  std::exception_ptr error;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    std::lock_guard compute(m_.compute_mutex());
    if (!fwd_) fwd_ = std::make_unique<Forward>(m_, 0, n_batch());
    fwd_->run(segs);
  } catch (...) {
    error = std::current_exception();
  }
  const auto elapsed = std::chrono::steady_clock::now() - t0;

  lk.lock();
  last_step_ = elapsed;
  const size_t n_vocab = static_cast<size_t>(m_.hparams().n_vocab);
  const size_t n_embd = static_cast<size_t>(m_.hparams().n_embd);
  for (size_t i = 0; i < parts.size(); ++i) {
    Pending* p = parts[i].p;
    const int k = parts[i].k;
    if (error) {
      p->error = error;
      p->done = true;
    } else {
      const int outs = segs[i].n_out;
      p->seg.tokens = p->seg.tokens.subspan(static_cast<size_t>(k));
      p->seg.pos0 += k;
      p->seg.n_out -= outs;
      if (outs > 0) p->seg.logits += static_cast<size_t>(outs) * n_vocab;
      if (p->seg.hidden != nullptr) p->seg.hidden += static_cast<size_t>(k) * n_embd;
      p->done = p->seg.tokens.empty();
    }
    if (p->done) std::erase(queue_, p);
    stats_.tokens += static_cast<uint64_t>(k);
  }
  ++stats_.steps;
  stats_.segments += parts.size();
  stats_.max_segments_in_step = std::max(stats_.max_segments_in_step, static_cast<int>(parts.size()));
  busy_ = false;
  cv_.notify_all();
}

void StepBatcher::wipe() noexcept {
  std::lock_guard compute(m_.compute_mutex());
  if (fwd_) fwd_->wipe();
}

StepBatcher::Stats StepBatcher::stats() const {
  std::lock_guard lk(mu_);
  return stats_;
}

int StepBatcher::queued() const {
  std::lock_guard lk(mu_);
  return static_cast<int>(queue_.size());
}

void StepBatcher::set_formation_window_for_testing(std::chrono::milliseconds window) {
  std::lock_guard lk(mu_);
  formation_for_testing_ = window;
}

void StepBatcher::pause_for_testing(bool paused) {
  std::lock_guard lk(mu_);
  paused_ = paused;
  cv_.notify_all();
}

}  // namespace a3s::power::engine
