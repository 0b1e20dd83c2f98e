// The server address given to the client commands (--url).
//
// Accepted: "http://HOST[:PORT][/PREFIX]" or "https://HOST[:PORT][/PREFIX]"; a text without a scheme
// ("127.0.0.1:11434") means http. Plain http is accepted only for loopback hosts (localhost,
// 127.0.0.0/8, ::1) because prompts and API keys would otherwise cross the network in clear text;
// https always verifies the server certificate and host name. User names/passwords, queries and
// fragments in the URL are refused (pass keys with --api-key or A3S_POWER_API_KEY instead).
//
// "vsock://CID:PORT[/PREFIX]" is a server's vsock listener (decimal 32-bit CID and port, both given;
// docs/ra-tls.md "vsock"). The client connects the AF_VSOCK socket itself (server_route.h); whether
// it speaks TLS is the caller's (RA-TLS only: a3s-power-verify --ratls, --ratls-pin). Plain HTTP over
// vsock is for CID 1, this machine's own vsock loopback: other CIDs are reached through the host.
// Errors: Error(codes::kInvalidArgument) with a message that never repeats the URL's credentials.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace a3s::power::client {

class ServerUrl {
 public:
  static ServerUrl parse(std::string_view text);

  const std::string& scheme() const { return scheme_; }  // "http" | "https" | "vsock"
  const std::string& host() const { return host_; }      // as in the URL ("[::1]" for IPv6; vsock: the CID)
  int port() const { return port_; }                     // explicit or the scheme's default (not vsock)
  const std::string& prefix() const { return prefix_; }  // "" or "/path" without a trailing '/'

  bool is_vsock() const { return scheme_ == "vsock"; }
  uint32_t vsock_cid() const { return vsock_cid_; }    // vsock only
  uint32_t vsock_port() const { return vsock_port_; }  // vsock only
  // The server is on this machine: a loopback host, or vsock CID 1 (VMADDR_CID_LOCAL).
  bool is_local() const;

  // Absolute URL of an API path ("/v1/models" → "http://127.0.0.1:11434/v1/models"; vsock:
  // "vsock://3:5000/v1/models"), for messages, and for libcurl with http(s).
  std::string endpoint(std::string_view path) const;
  // "scheme://host:port" for messages.
  std::string display() const;

 private:
  std::string scheme_, host_, prefix_;
  int port_ = 0;
  uint32_t vsock_cid_ = 0, vsock_port_ = 0;
};

// True for "localhost", IPv4 127.0.0.0/8 and IPv6 ::1 (with or without brackets).
bool is_loopback_host(std::string_view host);

}  // namespace a3s::power::client
