// Scheduler: slot bound, queue bound (rate_limited), queue timeout, cancellation while queued,
// shutdown; Slot: one context per model, reused, released when the model is unloaded.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>

#include "support/fake_runtime.h"
#include "runtime/scheduler.h"

namespace a3s::power::runtime {
namespace {

using namespace std::chrono_literals;

// A job that blocks until released; records what happened to it.
struct Probe {
  std::promise<void> release;
  std::shared_future<void> released{release.get_future().share()};
  std::atomic<bool> ran{false};
  std::atomic<bool> started{false};
  std::promise<std::string> rejected_code;
  std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);

  Job job() {
    Job j;
    j.cancel = cancel;
    j.run = [this](Slot&) {
      started = true;
      while (released.wait_for(1ms) != std::future_status::ready) {
        if (cancel->load()) break;
      }
      ran = true;
    };
    j.reject = [this](const Error& e) { rejected_code.set_value(e.code()); };
    return j;
  }
};

void wait_until(const std::function<bool()>& cond) {
  while (!cond()) std::this_thread::sleep_for(1ms);
}

TEST(Scheduler, RunsAtMostSlotsJobsAtOnce) {
  Scheduler s({.slots = 2, .max_queue = 10, .queue_timeout = 60s});
  Probe a, b, c;
  s.submit(a.job());
  s.submit(b.job());
  s.submit(c.job());
  wait_until([&] { return a.started && b.started; });
  EXPECT_EQ(s.active(), 2);
  EXPECT_EQ(s.queued(), 1);
  EXPECT_FALSE(c.started);
  a.release.set_value();
  wait_until([&] { return c.started.load(); });
  b.release.set_value();
  c.release.set_value();
  wait_until([&] { return s.active() == 0; });
  EXPECT_TRUE(a.ran && b.ran && c.ran);
  EXPECT_EQ(s.queued(), 0);
}

TEST(Scheduler, FullQueueIsRateLimited) {
  Scheduler s({.slots = 1, .max_queue = 1, .queue_timeout = 60s});
  Probe a, b, c;
  s.submit(a.job());
  wait_until([&] { return a.started.load(); });
  s.submit(b.job());  // waits
  try {
    s.submit(c.job());
    FAIL() << "expected rate_limited";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "rate_limited");
    EXPECT_EQ(http_status_for(e.code()), 429);
  }
  a.release.set_value();
  b.release.set_value();
  wait_until([&] { return b.ran.load(); });
}

TEST(Scheduler, ZeroQueueStillAdmitsToAnIdleSlot) {
  Scheduler s({.slots = 1, .max_queue = 0, .queue_timeout = 60s});
  Probe a, b;
  s.submit(a.job());
  wait_until([&] { return a.started.load(); });
  EXPECT_THROW(s.submit(b.job()), Error);
  a.release.set_value();
  wait_until([&] { return s.active() == 0; });
  Probe c;
  c.release.set_value();
  EXPECT_NO_THROW(s.submit(c.job()));
  wait_until([&] { return c.ran.load(); });
}

TEST(Scheduler, WaitingPastTheTimeoutIsRejected) {
  Scheduler s({.slots = 1, .max_queue = 4, .queue_timeout = 50ms});
  Probe a, b;
  s.submit(a.job());
  wait_until([&] { return a.started.load(); });
  s.submit(b.job());
  auto f = b.rejected_code.get_future();
  EXPECT_EQ(f.get(), "queue_timeout");  // the reaper rejects it while `a` still runs
  EXPECT_EQ(http_status_for("queue_timeout"), 503);
  EXPECT_FALSE(b.started);
  a.release.set_value();
  wait_until([&] { return s.active() == 0; });
  EXPECT_FALSE(b.ran);
}

TEST(Scheduler, CancelledWhileQueuedNeverRuns) {
  Scheduler s({.slots = 1, .max_queue = 4, .queue_timeout = 60s});
  Probe a, b, c;
  s.submit(a.job());
  wait_until([&] { return a.started.load(); });
  s.submit(b.job());
  s.submit(c.job());
  b.cancel->store(true);
  a.release.set_value();
  c.release.set_value();
  wait_until([&] { return c.ran.load(); });
  EXPECT_FALSE(b.started);
}

TEST(Scheduler, ShutdownRejectsQueuedAndCancelsRunning) {
  Scheduler s({.slots = 1, .max_queue = 4, .queue_timeout = 60s});
  Probe a, b;
  s.submit(a.job());
  wait_until([&] { return a.started.load(); });
  s.submit(b.job());
  auto f = b.rejected_code.get_future();
  s.shutdown();  // returns once `a` saw its cancel flag
  EXPECT_TRUE(a.cancel->load());
  EXPECT_TRUE(a.ran);
  EXPECT_EQ(f.get(), "service_unavailable");
  Probe c;
  try {
    s.submit(c.job());
    FAIL() << "expected service_unavailable";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), "service_unavailable");
  }
}

TEST(Scheduler, RejectsBadOptions) {
  EXPECT_THROW(Scheduler({.slots = 0, .max_queue = 1, .queue_timeout = 1s}), Error);
  EXPECT_THROW(Scheduler({.slots = 1, .max_queue = -1, .queue_timeout = 1s}), Error);
}

TEST(Slot, ReusesOneContextPerModelAndReleasesUnloaded) {
  testing::FakeOptions o;
  auto stats = o.stats;
  auto m1 = std::make_shared<testing::FakeRuntime>("m1", o);
  auto m2 = std::make_shared<testing::FakeRuntime>("m2", o);
  Slot slot(0);
  RuntimeContext* c1 = &slot.context_for(m1);
  EXPECT_EQ(&slot.context_for(m1), c1);
  slot.context_for(m2);
  EXPECT_EQ(stats->contexts_created, 2);
  EXPECT_EQ(slot.n_contexts(), 2u);
  m2.reset();  // unloaded and no request holds it
  slot.release_unloaded();
  EXPECT_EQ(slot.n_contexts(), 1u);
}

}  // namespace
}  // namespace a3s::power::runtime
