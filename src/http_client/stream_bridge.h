// A local endpoint for libcurl whose connections are relayed to streams the caller opens: how the
// client reaches a vsock listener (server_route.h). libcurl has no AF_VSOCK, and Debian 12's libcurl
// (7.88) can neither take a socket the caller connected (CURL_SOCKOPT_ALREADY_CONNECTED is broken in
// 7.88: it connects the socket again) nor report an AF_VSOCK address (the transfer fails). So libcurl
// connects to an abstract Unix socket of this process (CURLOPT_ABSTRACT_UNIX_SOCKET with name()), and
// every connection accepted there is relayed byte for byte to a new stream from the Connector. TLS runs
// in libcurl, end to end through the relay; the relay sees plaintext only for plain HTTP.
//
// Security: the name is 128 random bits, but abstract names are visible in /proc/net/unix, so the bridge
// accepts connections from this process only (SO_PEERCRED); others are closed before any stream opens.
// The relay buffers are wiped when a connection ends.
//
// One thread relays every connection of the bridge; the destructor stops it and closes every socket.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace a3s::power::client {

class StreamBridge {
 public:
  // Returns a connected stream socket (the bridge owns it) or throws a3s::power::Error.
  using Connector = std::function<int()>;

  // `first`: a stream the caller already connected (or -1), used for the first accepted connection, so
  // that an unreachable server fails the caller before libcurl starts; later connections call `connect`.
  // Throws Error(codes::kInternal) when the local socket or the thread cannot be made.
  StreamBridge(Connector connect, int first);
  ~StreamBridge();
  StreamBridge(const StreamBridge&) = delete;
  StreamBridge& operator=(const StreamBridge&) = delete;

  // The abstract socket name without its leading NUL (CURLOPT_ABSTRACT_UNIX_SOCKET).
  const std::string& name() const { return name_; }

  // The message of the last Connector failure since the previous call ("" if none): the reason a
  // connection libcurl made was closed at once.
  std::string take_connect_error();

 private:
  void run();

  Connector connect_;
  int first_;
  int listener_ = -1;
  int wake_ = -1;  // eventfd: the destructor's stop signal
  std::string name_;
  std::mutex mu_;
  std::string connect_error_;
  std::thread thread_;
};

}  // namespace a3s::power::client
