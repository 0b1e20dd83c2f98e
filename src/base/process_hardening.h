// Process-wide hardening for TEE mode (docs/privacy.md, "Core dumps").
#pragma once

namespace a3s::power {

// Makes sure the process never writes a core dump or lets another process of the same user read its
// memory through ptrace or /proc/PID/mem: sets RLIMIT_CORE to 0 (soft and hard) and clears the
// dumpable flag (prctl PR_SET_DUMPABLE 0). Irreversible for the process (the hard limit cannot be
// raised again without privilege). Throws Error(codes::kInternal) naming the call that failed.
void disable_core_dumps();

}  // namespace a3s::power
