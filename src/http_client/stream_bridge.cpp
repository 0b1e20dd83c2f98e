#include "http_client/stream_bridge.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <list>
#include <vector>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "base/syscall.h"

namespace a3s::power::client {
namespace {

constexpr size_t kBufferBytes = 16 * 1024;

// One direction of a relayed connection.
struct Direction {
  std::array<char, kBufferBytes> data{};
  size_t begin = 0, end = 0;
  bool source_ended = false;  // read() gave end of file
  bool sink_shut = false;     // the sink was shut down for writing, after the last byte

  size_t pending() const { return end - begin; }
  bool can_read() const { return !source_ended && end < data.size(); }
};

// A connection libcurl made (`down`) and the stream it is relayed to (`up`).
struct Link {
  int down = -1;
  int up = -1;
  Direction to_up, to_down;
  bool failed = false;

  Link(int d, int u) : down(d), up(u) {}
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  ~Link() {
    // Requests and answers passed through here (plain HTTP: prompts and keys).
    explicit_bzero(to_up.data.data(), to_up.data.size());
    explicit_bzero(to_down.data.data(), to_down.data.size());
    if (down >= 0) ::close(down);
    if (up >= 0) ::close(up);
  }
  bool done() const { return failed || (to_up.sink_shut && to_down.sink_shut); }
};

bool would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == EINTR; }

// Moves what `from` has and `d` can hold, then what `d` holds and `to` takes; shuts `to` down for
// writing once `from` ended and everything was written.
void relay(int from, Direction& d, int to, bool& failed) {
  if (d.can_read()) {
    const ssize_t n = ::read(from, d.data.data() + d.end, d.data.size() - d.end);
    if (n > 0) {
      d.end += static_cast<size_t>(n);
    } else if (n == 0) {
      d.source_ended = true;
    } else if (!would_block(errno)) {
      failed = true;
      return;
    }
  }
  while (d.pending() > 0) {
    const ssize_t n = ::send(to, d.data.data() + d.begin, d.pending(), MSG_NOSIGNAL);
    if (n > 0) {
      d.begin += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && would_block(errno)) break;
    failed = true;
    return;
  }
  if (d.pending() == 0) {
    explicit_bzero(d.data.data(), d.end);
    d.begin = d.end = 0;
  }
  if (d.source_ended && d.pending() == 0 && !d.sink_shut) {
    ::shutdown(to, SHUT_WR);
    d.sink_shut = true;
  }
}

short wanted(const Direction& reading, const Direction& writing) {
  short events = 0;
  if (reading.can_read()) events |= POLLIN;
  if (writing.pending() > 0) events |= POLLOUT;
  return events;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

// True when the peer of an accepted connection is this process.
bool from_this_process(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  return ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid == ::getpid();
}

}  // namespace

StreamBridge::StreamBridge(Connector connect, int first) : connect_(std::move(connect)), first_(first) {
  try {
    for (int attempt = 0; listener_ < 0; ++attempt) {
      std::array<uint8_t, 16> random{};
      if (::getrandom(random.data(), random.size(), 0) != static_cast<ssize_t>(random.size()))
        throw Error(codes::kInternal, "cannot draw a name for the local vsock bridge");
      name_ = "a3s-power-" + to_hex(random);
      const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) throw Error(codes::kInternal, std::string("cannot open the local vsock bridge: ") + std::strerror(errno));
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::memcpy(addr.sun_path + 1, name_.data(), name_.size());  // sun_path[0] = 0: abstract
      const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name_.size());
      if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), len) == 0 && ::listen(fd, 16) == 0) {
        listener_ = fd;
        break;
      }
      const int e = errno;
      ::close(fd);
      if (e != EADDRINUSE || attempt == 3)
        throw Error(codes::kInternal, std::string("cannot open the local vsock bridge: ") + std::strerror(e));
    }
    wake_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_ < 0) throw Error(codes::kInternal, "cannot open the local vsock bridge's event");
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    if (listener_ >= 0) ::close(listener_);
    if (wake_ >= 0) ::close(wake_);
    if (first_ >= 0) ::close(first_);
    throw;
  }
}

StreamBridge::~StreamBridge() {
  const uint64_t one = 1;
  (void)!::write(wake_, &one, sizeof one);
  thread_.join();
  ::close(listener_);
  ::close(wake_);
  if (first_ >= 0) ::close(first_);
}

std::string StreamBridge::take_connect_error() {
  std::lock_guard lock(mu_);
  return std::exchange(connect_error_, std::string());
}

void StreamBridge::run() {
  std::list<Link> links;
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({pollfd{wake_, POLLIN, 0}, pollfd{listener_, POLLIN, 0}});
    // A socket with nothing to read or write is left out (fd -1): its hang-up would wake poll() at once,
    // over and over, while the other direction still waits.
    for (const Link& l : links) {
      const short down_events = wanted(l.to_up, l.to_down);
      const short up_events = wanted(l.to_down, l.to_up);
      fds.push_back(pollfd{down_events != 0 ? l.down : -1, down_events, 0});
      fds.push_back(pollfd{up_events != 0 ? l.up : -1, up_events, 0});
    }
    if (retry_on_eintr([&] { return ::poll(fds.data(), fds.size(), -1); }) < 0) return;
    if (fds[0].revents != 0) return;  // stopping: the links' destructors close and wipe
    if (fds[1].revents & POLLIN) {
      const int down = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (down < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
        ::usleep(50'000);  // out of descriptors or memory: the listener stays readable; do not spin
      } else if (down >= 0 && !from_this_process(down)) {
        ::close(down);
      } else if (down >= 0) {
        int up = std::exchange(first_, -1);
        if (up < 0) {
          try {
            up = connect_();
          } catch (const std::exception& e) {
            std::lock_guard lock(mu_);
            connect_error_ = e.what();
          }
        }
        if (up < 0) {
          ::close(down);  // libcurl sees the connection closed; take_connect_error() says why
        } else {
          set_nonblocking(up);
          links.emplace_back(down, up);
        }
      }
    }
    for (Link& l : links) {
      relay(l.down, l.to_up, l.up, l.failed);
      if (!l.failed) relay(l.up, l.to_down, l.down, l.failed);
    }
    links.remove_if([](const Link& l) { return l.done(); });
  }
}

}  // namespace a3s::power::client
