// Process-wide hardening for TEE mode (docs/privacy.md, "Core dumps").
#pragma once

#include <string>

namespace a3s::power {

// Makes sure the process never writes a core dump or lets another process of the same user read its
// memory through ptrace or /proc/PID/mem: sets RLIMIT_CORE to 0 (soft and hard) and clears the
// dumpable flag (prctl PR_SET_DUMPABLE 0). Irreversible for the process (the hard limit cannot be
// raised again without privilege). Throws Error(codes::kInternal) naming the call that failed.
void disable_core_dumps();

// Locks the process's memory in RAM — every page mapped now and every page faulted in later
// (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) — so that weights, the KV cache, request buffers
// and keys never reach swap. Returns "" on success, else why, naming RLIMIT_MEMLOCK and its soft
// limit (the usual cause: a limit below the process's size without CAP_IPC_LOCK). tee_mode calls it at
// startup: a failure stops a strict server and is a warning in development (docs/privacy.md).
std::string lock_process_memory();

// Test seam: the mlockall(2) that lock_process_memory calls (nullptr: the real one).
void set_mlockall_for_testing(int (*mlockall_fn)(int flags));

}  // namespace a3s::power
