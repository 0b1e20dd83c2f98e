// When a worker pool steps down to its calling thread alone, and when it tries its workers again.
//
// Why: a worker that shares its core with a competing process can be descheduled for a whole time
// slice (milliseconds) while it holds a claimed task, and the run waits for that task; two threads
// are then slower than one; a worker that cannot run in time takes no task, and waking it each run
// costs a system call.
//
// The policy: trials run when the workers failed to help in most runs since the last one (and,
// while stepped down, now and then). A trial alternates blocks of kBlockRuns runs between the mode
// in use (all threads, or the calling thread alone) and the other mode, beginning and ending in the
// mode in use, so that work that changes steadily (a growing KV cache) weighs on both alike. After
// the trial the mode in use is all threads only when their mean wall time per run was clearly
// (kParallelMargin, 15 %) below the calling thread's alone — in a near tie beside a competing load,
// one thread is the steadier choice. A trial ends early once a block in the other mode was far
// (kProbeLoses, 1.5×) slower per run than the mode in use. Trials are kMinTrialInterval runs apart
// after a change of mode, twice as far each time the mode in use stays (up to kMaxTrialInterval),
// so that where the workers help, trials are rare.
//
// This class only decides: the pool reports each run (its wall time while a trial is under way, and
// whether the workers failed to help) and asks which mode the next run uses. It holds no clock and
// no thread, so its decisions are tested with given run times (tests/unit/base/step_down_policy_test).
// Not thread-safe: the pool's calling thread alone uses it (one run at a time).
#pragma once

namespace a3s::power {

class StepDownPolicy {
 public:
  static constexpr int kBlockRuns = 32;         // runs per block of a trial
  static constexpr int kTrialProbeBlocks = 8;    // blocks in the other mode per trial, at most
  static constexpr int kMinTrialInterval = 1024;  // runs between trials after a change of mode
  static constexpr int kMaxTrialInterval = 32768;
  static constexpr double kProbeLoses = 1.5;      // a probe block this much slower per run ends a trial
  static constexpr double kParallelMargin = 1.15;  // all threads must be this much faster to be used

  // The mode in use is the calling thread alone (a trial may still run blocks on every thread).
  bool stepped_down() const { return solo_; }
  // The next run uses the calling thread alone: the mode in use, or the other one in a probe block.
  bool next_run_solo() const { return solo_ != probing_; }
  // A trial is under way: the next run's wall time counts (the caller times only these runs).
  bool timing() const { return in_trial_; }
  // Runs from the end of the last trial (or the start) to the next one, as it stands now.
  int trial_interval() const { return trial_interval_; }

  // Reports a run that used next_run_solo()'s mode: its wall time in nanoseconds (read only while
  // timing(); pass 0 otherwise) and whether it ran on all threads without the workers' help (they
  // took no task, or the caller waited long for them).
  void record(double run_ns, bool unhelped);

 private:
  bool solo_ = false;     // the mode in use is the calling thread alone
  bool probing_ = false;   // this block of a trial runs in the other mode
  bool in_trial_ = false;
  int trial_interval_ = kMinTrialInterval;
  int runs_since_trial_ = 0;
  int unhelped_runs_ = 0;  // since the last trial
  int block_ = 0;            // block of the trial: even in the mode in use, odd in the other
  int block_runs_ = 0;
  double trial_ns_[2] = {0, 0};  // wall time of the trial's runs: [0] mode in use, [1] other mode
  int trial_runs_[2] = {0, 0};
};

}  // namespace a3s::power
