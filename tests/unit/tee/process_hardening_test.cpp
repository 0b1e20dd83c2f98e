// disable_core_dumps() in a forked child (it is irreversible for the process): RLIMIT_CORE is 0/0 and
// the process is no longer dumpable.
#include "base/process_hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace a3s::power {
namespace {

// Exit codes of the child: 0 = all checks passed.
int hardened_child() {
  try {
    disable_core_dumps();
  } catch (...) {
    return 10;
  }
  rlimit r{};
  if (::getrlimit(RLIMIT_CORE, &r) != 0) return 11;
  if (r.rlim_cur != 0) return 12;
  if (r.rlim_max != 0) return 13;
  if (::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0) return 14;
  // The hard limit cannot be raised back by an unprivileged process (root may: then skip the check).
  const rlimit more{1 << 20, 1 << 20};
  if (::geteuid() != 0 && ::setrlimit(RLIMIT_CORE, &more) == 0) return 15;
  return 0;
}

TEST(ProcessHardening, DisableCoreDumpsInAChild) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(hardened_child());
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(ProcessHardening, TheParentIsUntouched) {
  EXPECT_EQ(::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
}

}  // namespace
}  // namespace a3s::power
