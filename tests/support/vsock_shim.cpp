// LD_PRELOAD library for end-to-end tests on kernels without vsock loopback: with
// A3S_TEST_VSOCK_DIR set, AF_VSOCK stream sockets are AF_UNIX sockets in that directory, one file per
// vsock port ("<dir>/<port>"), so the real binaries (`a3s-power serve` with vsock_port,
// `a3s-power-verify --url vsock://…`, `a3s-power chat --url vsock://…`) run their own vsock code over
// the same stream abstraction. Any CID reaches the one directory. A test reaches a server's vsock port
// itself through the Unix socket file (libcurl's CURLOPT_UNIX_SOCKET_PATH).
//
// Interposed: socket, bind, connect, getsockname, getpeername, close. Without the variable every call is
// passed through unchanged.
#include <dlfcn.h>
#include <linux/vm_sockets.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr int kMaxFd = 65536;
// Per fd: 0 not a stand-in; else kStandIn | (bound ? kBound : 0) | port.
constexpr uint64_t kStandIn = 1ull << 63;
constexpr uint64_t kBound = 1ull << 62;
std::atomic<uint64_t> g_fds[kMaxFd];
std::atomic<uint32_t> g_next_port{0};

template <class F>
F next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

const char* dir() {
  static const char* d = std::getenv("A3S_TEST_VSOCK_DIR");
  return d != nullptr && d[0] != '\0' ? d : nullptr;
}

uint64_t state(int fd) { return fd >= 0 && fd < kMaxFd ? g_fds[fd].load() : 0; }

bool unix_address(uint32_t port, sockaddr_un& out, socklen_t& len) {
  const std::string path = std::string(dir()) + "/" + std::to_string(port);
  if (path.size() >= sizeof out.sun_path) return false;
  std::memset(&out, 0, sizeof out);
  out.sun_family = AF_UNIX;
  std::memcpy(out.sun_path, path.c_str(), path.size() + 1);
  len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return true;
}

int vsock_address(uint32_t cid, uint32_t port, sockaddr* addr, socklen_t* len) {
  sockaddr_vm vm{};
  vm.svm_family = AF_VSOCK;
  vm.svm_cid = cid;
  vm.svm_port = port;
  const socklen_t n = *len < sizeof vm ? *len : static_cast<socklen_t>(sizeof vm);
  std::memcpy(addr, &vm, n);
  *len = sizeof vm;
  return 0;
}

}  // namespace

extern "C" {

int socket(int domain, int type, int protocol) {
  static auto real = next<int (*)(int, int, int)>("socket");
  if (domain != AF_VSOCK || dir() == nullptr) return real(domain, type, protocol);
  const int fd = real(AF_UNIX, type, 0);
  if (fd >= 0 && fd < kMaxFd) g_fds[fd] = kStandIn;
  return fd;
}

int bind(int fd, const sockaddr* addr, socklen_t len) {
  static auto real = next<int (*)(int, const sockaddr*, socklen_t)>("bind");
  const uint64_t s = state(fd);
  if (!(s & kStandIn) || addr == nullptr || addr->sa_family != AF_VSOCK) return real(fd, addr, len);
  uint32_t port = reinterpret_cast<const sockaddr_vm*>(addr)->svm_port;
  const bool any = port == VMADDR_PORT_ANY;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    if (any) port = 20000 + (static_cast<uint32_t>(::getpid()) * 7 + g_next_port++) % 40000;
    sockaddr_un un{};
    socklen_t un_len = 0;
    if (!unix_address(port, un, un_len)) {
      errno = ENAMETOOLONG;
      return -1;
    }
    if (real(fd, reinterpret_cast<const sockaddr*>(&un), un_len) == 0) {
      g_fds[fd] = kStandIn | kBound | port;
      return 0;
    }
    if (!any || errno != EADDRINUSE) return -1;
  }
  return -1;
}

int connect(int fd, const sockaddr* addr, socklen_t len) {
  static auto real = next<int (*)(int, const sockaddr*, socklen_t)>("connect");
  const uint64_t s = state(fd);
  if (!(s & kStandIn) || addr == nullptr || addr->sa_family != AF_VSOCK) return real(fd, addr, len);
  const uint32_t port = reinterpret_cast<const sockaddr_vm*>(addr)->svm_port;
  sockaddr_un un{};
  socklen_t un_len = 0;
  if (!unix_address(port, un, un_len)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  const int r = real(fd, reinterpret_cast<const sockaddr*>(&un), un_len);
  if (r == 0) g_fds[fd] = kStandIn | port;
  // A Unix socket file that is not there is a vsock port nobody listens on.
  if (r != 0 && errno == ENOENT) errno = ECONNRESET;
  return r;
}

int getsockname(int fd, sockaddr* addr, socklen_t* len) {
  static auto real = next<int (*)(int, sockaddr*, socklen_t*)>("getsockname");
  const uint64_t s = state(fd);
  if (!(s & kStandIn)) return real(fd, addr, len);
  return vsock_address(VMADDR_CID_ANY, (s & kBound) ? static_cast<uint32_t>(s) : VMADDR_PORT_ANY, addr, len);
}

int getpeername(int fd, sockaddr* addr, socklen_t* len) {
  static auto real = next<int (*)(int, sockaddr*, socklen_t*)>("getpeername");
  const uint64_t s = state(fd);
  if (!(s & kStandIn) || (s & kBound)) return real(fd, addr, len);
  return vsock_address(VMADDR_CID_LOCAL, static_cast<uint32_t>(s), addr, len);
}

int close(int fd) {
  static auto real = next<int (*)(int)>("close");
  if (fd >= 0 && fd < kMaxFd) g_fds[fd] = 0;
  return real(fd);
}

}  // extern "C"
