// disable_core_dumps() in a forked child (it is irreversible for the process): RLIMIT_CORE is 0/0 and
// the process is no longer dumpable.
#include "base/process_hardening.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cerrno>
#include <string>

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

int g_mlockall_flags = 0;
int refuse_mlockall(int flags) {
  g_mlockall_flags = flags;
  errno = ENOMEM;
  return -1;
}
int accept_mlockall(int flags) {
  g_mlockall_flags = flags;
  return 0;
}

TEST(ProcessHardening, LockProcessMemoryLocksCurrentAndFuturePagesAndNamesTheLimitOnFailure) {
  set_mlockall_for_testing(&accept_mlockall);
  EXPECT_EQ(lock_process_memory(), "");
  EXPECT_EQ(g_mlockall_flags, MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
  set_mlockall_for_testing(&refuse_mlockall);
  const std::string why = lock_process_memory();
  set_mlockall_for_testing(nullptr);
  EXPECT_NE(why.find("mlockall failed"), std::string::npos) << why;
  EXPECT_NE(why.find("RLIMIT_MEMLOCK"), std::string::npos) << why;
  EXPECT_NE(why.find("CAP_IPC_LOCK"), std::string::npos) << why;
}

}  // namespace
}  // namespace a3s::power
