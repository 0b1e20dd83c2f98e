// The step-down policy on given run times (no clock, no threads): when a trial starts, how its
// blocks alternate, when it ends early, which mode it leaves in use, and how far apart trials are.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/step_down_policy.h"

namespace a3s::power {
namespace {

using P = StepDownPolicy;

// Wall time per run in each mode, in nanoseconds.
struct Costs {
  double all;    // on all threads
  double alone;  // on the calling thread alone
};

// Feeds `n` runs in whatever mode the policy asks for; counts those on all threads.
struct Driver {
  P policy;
  int runs_on_all = 0;
  int runs = 0;
  void feed(int n, Costs c, bool unhelped_on_all) {
    for (int i = 0; i < n; ++i) {
      const bool solo = policy.next_run_solo();
      if (!solo) ++runs_on_all;
      ++runs;
      policy.record(policy.timing() ? (solo ? c.alone : c.all) : 0.0, !solo && unhelped_on_all);
    }
  }
  // Runs until the trial under way (or about to start) ends; returns its length in runs.
  int feed_trial(Costs c, bool unhelped_on_all) {
    int n = 0;
    while (!policy.timing()) {
      feed(1, c, unhelped_on_all);
      if (++n > P::kMaxTrialInterval + 1) return -1;  // no trial started
    }
    int trial = 0;
    while (policy.timing()) {
      feed(1, c, unhelped_on_all);
      ++trial;
    }
    return trial;
  }
};

constexpr Costs kLateWorkers{1'000'000, 160'000};  // a worker descheduled while it holds a task
constexpr Costs kHelpingWorkers{90'000, 160'000};
constexpr Costs kNearTie{150'000, 160'000};

TEST(StepDownPolicy, StartsOnAllThreadsAndStaysThereWhileTheWorkersHelp) {
  Driver d;
  EXPECT_FALSE(d.policy.stepped_down());
  EXPECT_FALSE(d.policy.next_run_solo());
  d.feed(200'000, kHelpingWorkers, false);
  EXPECT_FALSE(d.policy.timing()) << "a trial started although the workers helped";
  EXPECT_EQ(d.runs_on_all, d.runs);
}

TEST(StepDownPolicy, AFewUnhelpedRunsStartNoTrial) {
  // Runs the caller finished alone, but fewer than half of them: no sign of a competing load.
  Driver d;
  for (int i = 0; i < 10'000; ++i) {
    d.feed(1, kHelpingWorkers, i % 2 == 0 && i % 4 != 0);  // a quarter of the runs
    ASSERT_FALSE(d.policy.timing()) << "run " << i;
  }
}

TEST(StepDownPolicy, LateWorkersStartATrialThatStepsDown) {
  Driver d;
  d.feed(P::kMinTrialInterval - 1, kLateWorkers, true);
  EXPECT_FALSE(d.policy.timing());
  d.feed(1, kLateWorkers, true);
  ASSERT_TRUE(d.policy.timing()) << "no trial after kMinTrialInterval unhelped runs";
  // On all threads the other mode (alone) is the faster one: the trial runs every block, mode in
  // use first and last, and leaves the calling thread alone in use.
  d.runs_on_all = 0;
  int trial = 0;
  bool solo_seen[2 * P::kTrialProbeBlocks + 1] = {};
  while (d.policy.timing()) {
    solo_seen[trial / P::kBlockRuns] = d.policy.next_run_solo();
    d.feed(1, kLateWorkers, true);
    ++trial;
  }
  EXPECT_EQ(trial, (2 * P::kTrialProbeBlocks + 1) * P::kBlockRuns);
  for (int b = 0; b < 2 * P::kTrialProbeBlocks + 1; ++b) EXPECT_EQ(solo_seen[b], b % 2 == 1) << "block " << b;
  EXPECT_EQ(d.runs_on_all, (P::kTrialProbeBlocks + 1) * P::kBlockRuns);
  EXPECT_TRUE(d.policy.stepped_down());
  EXPECT_TRUE(d.policy.next_run_solo());
  EXPECT_EQ(d.policy.trial_interval(), P::kMinTrialInterval);
}

TEST(StepDownPolicy, SteppedDownTheWorkersGetRunsOnlyInTrialsWhichEndAfterOneLosingBlock) {
  Driver d;
  d.feed_trial(kLateWorkers, true);
  ASSERT_TRUE(d.policy.stepped_down());
  // Between trials every run is on the calling thread alone.
  d.runs_on_all = 0;
  d.feed(P::kMinTrialInterval - 1, kLateWorkers, true);
  EXPECT_EQ(d.runs_on_all, 0);
  EXPECT_FALSE(d.policy.timing());
  // The next trial: a block alone, a block on all threads far slower (1.5×) → it ends there.
  d.feed(1, kLateWorkers, true);
  ASSERT_TRUE(d.policy.timing());
  d.runs_on_all = 0;
  const int trial = d.feed_trial(kLateWorkers, true);
  EXPECT_EQ(trial, 2 * P::kBlockRuns);
  EXPECT_EQ(d.runs_on_all, P::kBlockRuns);
  EXPECT_TRUE(d.policy.stepped_down());
  // The mode in use stayed: trials are twice as far apart each time, up to kMaxTrialInterval.
  EXPECT_EQ(d.policy.trial_interval(), 2 * P::kMinTrialInterval);
  int interval = 2 * P::kMinTrialInterval;
  for (int t = 0; t < 8; ++t) {
    d.runs_on_all = 0;
    int before = 0;
    while (!d.policy.timing()) {
      d.feed(1, kLateWorkers, true);
      ++before;
    }
    EXPECT_EQ(before, interval) << "trial " << t;
    EXPECT_EQ(d.runs_on_all, 0) << "trial " << t;
    d.feed_trial(kLateWorkers, true);
    EXPECT_EQ(d.runs_on_all, P::kBlockRuns) << "trial " << t;
    interval = std::min(2 * interval, P::kMaxTrialInterval);
    EXPECT_EQ(d.policy.trial_interval(), interval) << "trial " << t;
  }
  EXPECT_EQ(d.policy.trial_interval(), P::kMaxTrialInterval);
}

TEST(StepDownPolicy, SteppedDownATrialWhereTheWorkersHelpGoesBackToAllThreads) {
  Driver d;
  d.feed_trial(kLateWorkers, true);
  ASSERT_TRUE(d.policy.stepped_down());
  d.feed_trial(kLateWorkers, true);  // stays: the interval doubles
  ASSERT_EQ(d.policy.trial_interval(), 2 * P::kMinTrialInterval);
  // The competing load has gone: the next trial runs every block and leaves all threads in use.
  const int trial = d.feed_trial(kHelpingWorkers, false);
  EXPECT_EQ(trial, (2 * P::kTrialProbeBlocks + 1) * P::kBlockRuns);
  EXPECT_FALSE(d.policy.stepped_down());
  EXPECT_FALSE(d.policy.next_run_solo());
  EXPECT_EQ(d.policy.trial_interval(), P::kMinTrialInterval);
  // And then stays there while the workers help.
  d.feed(100'000, kHelpingWorkers, false);
  EXPECT_FALSE(d.policy.timing());
  EXPECT_FALSE(d.policy.stepped_down());
}

TEST(StepDownPolicy, InANearTieTheCallingThreadAloneIsKept) {
  // All threads 6 % faster, below the 15 % margin: stepped down, the pool stays so; on all threads,
  // a trial steps down.
  Driver d;
  d.feed_trial(kLateWorkers, true);
  ASSERT_TRUE(d.policy.stepped_down());
  d.feed_trial(kNearTie, false);
  EXPECT_TRUE(d.policy.stepped_down());

  Driver e;
  e.feed(P::kMinTrialInterval, kNearTie, true);
  ASSERT_TRUE(e.policy.timing());
  e.feed_trial(kNearTie, true);
  EXPECT_TRUE(e.policy.stepped_down());
}

TEST(StepDownPolicy, OnAllThreadsATrialThatFindsThemFasterKeepsThemAndWaitsLonger) {
  // The workers took no task in most runs (small runs), yet all threads measure clearly faster: the
  // first block alone is more than 1.5× slower, and ends the trial.
  Driver d;
  const int trial = d.feed_trial(kHelpingWorkers, true);
  EXPECT_EQ(trial, 2 * P::kBlockRuns);
  EXPECT_FALSE(d.policy.stepped_down());
  EXPECT_EQ(d.policy.trial_interval(), 2 * P::kMinTrialInterval);
}

}  // namespace
}  // namespace a3s::power
