#include "base/step_down_policy.h"

#include <algorithm>

namespace a3s::power {

void StepDownPolicy::record(double run_ns, bool unhelped) {
  if (!in_trial_) {
    if (unhelped) ++unhelped_runs_;
    ++runs_since_trial_;
    // All threads in use: a trial only once the workers failed to help in most runs (a few small
    // runs that the caller finishes alone are no sign of a competing load). The calling thread
    // alone: a trial now and then, to see whether a competing load has gone.
    if (runs_since_trial_ < trial_interval_ || (!solo_ && 2 * unhelped_runs_ <= runs_since_trial_)) return;
    in_trial_ = true;  // blocks alternate from here: mode in use, other mode, … , mode in use
    block_ = 0;
    block_runs_ = 0;
    trial_ns_[0] = trial_ns_[1] = 0;
    trial_runs_[0] = trial_runs_[1] = 0;
    unhelped_runs_ = 0;
    runs_since_trial_ = 0;
    return;  // this run was outside the trial
  }
  const int kind = block_ & 1;  // 0: mode in use, 1: the other mode
  trial_ns_[kind] += run_ns;
  ++trial_runs_[kind];
  if (++block_runs_ < kBlockRuns) return;
  block_runs_ = 0;
  // A probe block far slower than the mode in use ends the trial at once: the other mode has lost,
  // and each further probe block would cost as much again (beside a competing load, a worker that
  // is descheduled while it holds a task stalls its run for a time slice).
  const bool lost = kind == 1 && trial_ns_[1] * trial_runs_[0] > kProbeLoses * trial_ns_[0] * trial_runs_[1];
  if (++block_ < 2 * kTrialProbeBlocks + 1 && !lost) {
    probing_ = (block_ & 1) != 0;
    return;
  }
  in_trial_ = false;
  probing_ = false;
  const double in_use = trial_ns_[0] / trial_runs_[0], other = trial_ns_[1] / trial_runs_[1];
  // All threads are the mode in use after a trial only when they were clearly faster per run (by
  // kParallelMargin): trials run only when the workers failed to help or while stepped down, that is
  // beside a competing load, which makes all threads look fast while it leaves their core for a
  // while and then stalls them; in a near tie the calling thread alone is the steadier choice.
  const double all = solo_ ? other : in_use, alone = solo_ ? in_use : other;
  const bool solo = all * kParallelMargin >= alone;
  if (solo != solo_) {
    solo_ = solo;
    trial_interval_ = kMinTrialInterval;
  } else {
    trial_interval_ = std::min(trial_interval_ * 2, kMaxTrialInterval);
  }
}

}  // namespace a3s::power
