#include "runtime/scheduler.h"

#include <algorithm>

namespace a3s::power::runtime {

Scheduler::Scheduler(const SchedulerOptions& opts) : opts_(opts) {
  if (opts_.slots < 1) throw Error(codes::kInvalidArgument, "scheduler needs at least one slot");
  if (opts_.max_queue < 0) throw Error(codes::kInvalidArgument, "max_queue must be >= 0");
  for (int i = 0; i < opts_.slots; ++i) slots_.push_back(std::make_unique<Slot>(i));
  for (auto& s : slots_) workers_.emplace_back([this, slot = s.get()] { worker_loop(*slot); });
  reaper_ = std::thread([this] { reaper_loop(); });
}

Scheduler::~Scheduler() { shutdown(); }

void Scheduler::submit(Job job) {
  {
    std::lock_guard lk(mu_);
    if (stopping_) throw Error(codes::kServiceUnavailable, "server is shutting down");
    // Every admitted job is either running or waiting; at most max_queue may wait beyond the slots.
    int in_system = static_cast<int>(queue_.size()) + active_;
    if (in_system >= opts_.slots + opts_.max_queue) {
      throw Error(codes::kRateLimited, "too many requests waiting for a generation slot; retry later");
    }
    queue_.push_back({std::move(job), std::chrono::steady_clock::now() + opts_.queue_timeout});
  }
  work_cv_.notify_one();
  reaper_cv_.notify_one();
}

int Scheduler::active() const {
  std::lock_guard lk(mu_);
  return active_;
}

int Scheduler::queued() const {
  std::lock_guard lk(mu_);
  return static_cast<int>(queue_.size());
}

void Scheduler::release_unloaded() {
  {
    std::lock_guard lk(mu_);
    ++release_epoch_;
  }
  work_cv_.notify_all();
}

void Scheduler::worker_loop(Slot& slot) {
  std::unique_lock lk(mu_);
  uint64_t seen_epoch = release_epoch_;
  for (;;) {
    work_cv_.wait(lk, [&] { return stopping_ || !queue_.empty() || release_epoch_ != seen_epoch; });
    if (release_epoch_ != seen_epoch) {
      seen_epoch = release_epoch_;
      lk.unlock();
      slot.release_unloaded();
      lk.lock();
    }
    if (stopping_) return;
    if (queue_.empty()) continue;
    Waiting w = std::move(queue_.front());
    queue_.pop_front();
    if (w.job.cancel && w.job.cancel->load()) continue;  // owner went away while waiting
    if (std::chrono::steady_clock::now() > w.deadline) {
      lk.unlock();
      if (w.job.reject) w.job.reject(Error(codes::kQueueTimeout, "timed out waiting for a generation slot"));
      lk.lock();
      continue;
    }
    ++active_;
    if (w.job.cancel) running_.push_back(w.job.cancel);
    lk.unlock();
    w.job.run(slot);
    auto cancel = w.job.cancel;
    w = Waiting{};  // drop the job's captures (buffers, model reference) before the slot idles
    lk.lock();
    if (cancel) running_.erase(std::find(running_.begin(), running_.end(), cancel));
    --active_;
  }
}

void Scheduler::reaper_loop() {
  std::unique_lock lk(mu_);
  for (;;) {
    if (stopping_) return;
    if (queue_.empty()) {
      reaper_cv_.wait(lk);
      continue;
    }
    // FIFO with one timeout: the front has the earliest deadline.
    auto deadline = queue_.front().deadline;
    if (std::chrono::steady_clock::now() < deadline) {
      reaper_cv_.wait_until(lk, deadline);
      continue;
    }
    std::vector<Job> expired;
    auto now = std::chrono::steady_clock::now();
    while (!queue_.empty() && queue_.front().deadline <= now) {
      expired.push_back(std::move(queue_.front().job));
      queue_.pop_front();
    }
    lk.unlock();
    for (auto& j : expired) {
      if (j.cancel && j.cancel->load()) continue;
      if (j.reject) j.reject(Error(codes::kQueueTimeout, "timed out waiting for a generation slot"));
    }
    expired.clear();
    lk.lock();
  }
}

void Scheduler::shutdown() {
  std::deque<Waiting> rejected;
  {
    std::lock_guard lk(mu_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
    rejected.swap(queue_);
    for (auto& c : running_) c->store(true);
  }
  work_cv_.notify_all();
  reaper_cv_.notify_all();
  for (auto& w : rejected) {
    if (w.job.reject) w.job.reject(Error(codes::kServiceUnavailable, "server is shutting down"));
  }
  rejected.clear();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
  if (reaper_.joinable()) reaper_.join();
}

}  // namespace a3s::power::runtime
