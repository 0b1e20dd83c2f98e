// run_without_sockets PROGRAM [ARG...]: runs PROGRAM under the no-socket seccomp filter
// (no_socket_filter.h), which execve keeps in force. Exit 127 when PROGRAM cannot be executed.
#include <unistd.h>

#include <cstdio>

#include "no_socket_filter.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: run_without_sockets PROGRAM [ARG...]\n");
    return 2;
  }
  a3s::power::testing::install_no_socket_filter();
  ::execv(argv[1], argv + 1);
  std::perror("run_without_sockets: execv");
  return 127;
}
