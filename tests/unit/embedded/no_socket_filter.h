// A seccomp filter that makes the process unable to create a socket: socket(2) and socketpair(2)
// fail with EPERM, and so does io_uring_setup(2) (an io_uring can create sockets without calling
// socket(2)). Installed on every thread of the process (SECCOMP_FILTER_FLAG_TSYNC) and inherited by
// the threads created later and across execve, it holds for direct system calls too, which an
// LD_PRELOAD shim would miss. Used by the embedded runtime's tests: the runtime must open no socket.
#pragma once

namespace a3s::power::testing {

// Installs the filter (libseccomp) or aborts the process with a message: a test that ran without it
// would prove nothing.
void install_no_socket_filter();

// Whether socket(AF_INET), socket(AF_UNIX), socket(AF_VSOCK) and socketpair(AF_UNIX) all fail with
// EPERM right now (the filter is in force).
bool sockets_refused();

}  // namespace a3s::power::testing
