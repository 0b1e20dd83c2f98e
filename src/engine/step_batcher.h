// The engine loop of one model: every Context of the model submits its work (a prefill chunk or a
// decode token) here, and whatever is waiting runs together as one forward pass (forward.h), so the
// weights are read once per step for all active sequences (continuous batching).
//
// There is no engine thread: the first waiting caller becomes the step's leader, runs the step on the
// model's thread pool under the compute mutex, and hands its results back; the next step is led by a
// caller still waiting. Sequences join and leave between steps.
//
// Step composition. A step takes at most n_batch tokens: first every waiting decode token (one-token
// segments), then prefill chunks in arrival order, the last one split if it does not fit (the rest
// waits for the next step; thanks to batch invariance the split does not change any result). Before
// it starts, the leader waits a short while (at most kMaxGrace, and at most a quarter of the last
// step's duration) for the active sequences — those that have submitted and not left (Context wipe,
// reset or destruction) — that are not waiting yet, so decode streams that sample between steps
// stay in one batch instead of alternating. A sequence that misses a step waits a whole step, so
// the grace scales with the step (a quarter of it) up to kMaxGrace: with streamed weights a step
// lasts about a second, and four request threads sampling on two busy cores can take longer than
// 20 ms to come back (the former cap), which left a sequence out of every other step.
// A step of prompts alone (nothing decoding) likewise waits up to kFormation, and at most an eighth
// of the last step, for more prompts, or until it is full: requests sent together arrive a few
// milliseconds apart, and a prompt that misses the first step waits all of it (with streamed
// weights, seconds), where one step for all of them reads the weights once.
//
// Errors: a step that throws fails every segment in it (each caller gets the error); the callers'
// caches then hold partial K/V beyond their n_past, which the next eval overwrites.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/forward.h"

namespace a3s::power::engine {

class ModelImpl;

class StepBatcher {
 public:
  static constexpr std::chrono::milliseconds kMaxGrace{250};
  static constexpr std::chrono::milliseconds kFormation{20};

  explicit StepBatcher(const ModelImpl& model);
  ~StepBatcher();
  StepBatcher(const StepBatcher&) = delete;
  StepBatcher& operator=(const StepBatcher&) = delete;

  // Runs `segment` (at most n_batch tokens; its cache reserved for them) in the next step(s) and
  // returns when all of its tokens have run. `owner` identifies the sequence (its Context). Rethrows
  // the error of a step that failed.
  void run(const Forward::Segment& segment, const void* owner);

  // `owner` will not submit again soon (its request ended): later steps do not wait for it.
  void leave(const void* owner);

  // Zeroes the forward pass's activation buffers (waits for a running step).
  void wipe() noexcept;

  int n_batch() const;

  struct Stats {
    uint64_t steps = 0;            // forward passes run
    uint64_t segments = 0;         // segments (or segment parts) run in them
    uint64_t tokens = 0;           // tokens run in them
    int max_segments_in_step = 0;  // the widest step so far
  };
  Stats stats() const;

  // Segments waiting for a step.
  int queued() const;

  // Tests: while paused no step starts (submissions queue up), so a test can make several
  // sequences share one step deterministically.
  void pause_for_testing(bool paused);
  // Tests: the window a step of prompts alone waits for more prompts, instead of min(kFormation, an
  // eighth of the last step) (negative: back to that rule).
  void set_formation_window_for_testing(std::chrono::milliseconds window);

 private:
  struct Pending {
    Forward::Segment seg;
    const void* owner;
    bool done = false;
    std::exception_ptr error;
  };
  void lead(std::unique_lock<std::mutex>& lk);
  bool all_active_waiting() const;

  const ModelImpl& m_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending*> queue_;
  bool busy_ = false;                       // a leader is composing or running a step
  bool paused_ = false;
  std::vector<const void*> active_;         // owners that have submitted and not left
  std::chrono::steady_clock::duration last_step_{};
  std::chrono::milliseconds formation_for_testing_{-1};
  std::unique_ptr<Forward> fwd_;            // created at the first step
  Stats stats_;
};

}  // namespace a3s::power::engine
