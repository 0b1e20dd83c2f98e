#include "http_client/server_route.h"

#include <fcntl.h>
#include <linux/vm_sockets.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "a3s/power/error.h"
#include "base/syscall.h"

namespace a3s::power::client {
namespace {

[[noreturn]] void unreachable(uint32_t cid, uint32_t port, const std::string& why) {
  throw Error(codes::kServerUnreachable,
              "cannot connect to the server at vsock://" + std::to_string(cid) + ":" + std::to_string(port) + ": " + why);
}

}  // namespace

int connect_vsock(uint32_t cid, uint32_t port, long timeout_ms) {
  const int fd = ::socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    const int e = errno;
    unreachable(cid, port, std::strerror(e) + std::string(e == EAFNOSUPPORT ? " (the kernel has no vsock transport)" : ""));
  }
  sockaddr_vm addr{};
  addr.svm_family = AF_VSOCK;
  addr.svm_cid = cid;
  addr.svm_port = port;
  int error = 0;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    error = errno;
    if (error == EINPROGRESS || error == EAGAIN) {
      pollfd p{fd, POLLOUT, 0};
      const int ready = retry_on_eintr([&] { return ::poll(&p, 1, static_cast<int>(timeout_ms)); });
      socklen_t len = sizeof error;
      if (ready == 0) {
        error = ETIMEDOUT;
      } else if (ready < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
        error = errno;
      }
    }
  }
  if (error != 0) {
    ::close(fd);
    if (error == ECONNREFUSED || error == ECONNRESET)
      unreachable(cid, port, "connection refused (is `a3s-power serve` listening on vsock_port there?)");
    unreachable(cid, port, std::strerror(error));
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

ServerRoute::ServerRoute(ServerUrl url, bool tls, long connect_timeout_ms)
    : url_(std::move(url)), tls_(tls || url_.scheme() == "https"), connect_timeout_ms_(connect_timeout_ms) {}

ServerRoute::~ServerRoute() = default;
ServerRoute::ServerRoute(ServerRoute&&) noexcept = default;
ServerRoute& ServerRoute::operator=(ServerRoute&&) noexcept = default;

void ServerRoute::apply(TransferOptions& o, std::string_view path_and_query) {
  if (!url_.is_vsock()) {
    o.url = url_.endpoint(path_and_query);
    return;
  }
  if (!bridge_) {
    const uint32_t cid = url_.vsock_cid(), port = url_.vsock_port();
    const long timeout = connect_timeout_ms_ > 0 ? connect_timeout_ms_ : 10'000;
    const int first = connect_vsock(cid, port, timeout);  // fails here, before libcurl starts
    bridge_ = std::make_unique<StreamBridge>([cid, port, timeout] { return connect_vsock(cid, port, timeout); }, first);
  }
  std::string target = std::string(tls_ ? "https" : "http") + "://vsock-" + std::to_string(url_.vsock_cid()) + url_.prefix();
  if (path_and_query.empty() || path_and_query.front() != '/') target += '/';
  target.append(path_and_query);
  o.url = std::move(target);
  o.abstract_unix_socket = bridge_->name();
  o.no_proxy = true;
}

std::string ServerRoute::take_connect_error() { return bridge_ ? bridge_->take_connect_error() : std::string(); }

}  // namespace a3s::power::client
