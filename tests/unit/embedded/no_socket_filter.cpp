#include "no_socket_filter.h"

#include <seccomp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

namespace a3s::power::testing {

void install_no_socket_filter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) {
    std::fprintf(stderr, "no_socket_filter: seccomp_init failed\n");
    std::abort();
  }
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  for (int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(io_uring_setup)}) {
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  }
  if (rc == 0) rc = seccomp_load(ctx);  // sets no_new_privs first (SCMP_FLTATR_CTL_NNP, the default)
  seccomp_release(ctx);
  if (rc != 0) {
    std::fprintf(stderr, "no_socket_filter: installing the seccomp filter failed (%d)\n", rc);
    std::abort();
  }
  if (!sockets_refused()) {
    std::fprintf(stderr, "no_socket_filter: the filter is loaded but a socket can still be created\n");
    std::abort();
  }
}

bool sockets_refused() {
  for (int family : {AF_INET, AF_INET6, AF_UNIX, AF_VSOCK}) {
    errno = 0;
    const int fd = ::socket(family, SOCK_STREAM, 0);
    if (fd >= 0) {
      ::close(fd);
      return false;
    }
    if (errno != EPERM) return false;
  }
  int pair[2];
  errno = 0;
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0) {
    ::close(pair[0]);
    ::close(pair[1]);
    return false;
  }
  return errno == EPERM;
}

}  // namespace a3s::power::testing
