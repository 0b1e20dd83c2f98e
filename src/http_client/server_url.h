// The server address given to the client commands (--url).
//
// Accepted: "http://HOST[:PORT][/PREFIX]" or "https://HOST[:PORT][/PREFIX]"; a text without a scheme
// ("127.0.0.1:11434") means http. Plain http is accepted only for loopback hosts (localhost,
// 127.0.0.0/8, ::1) because prompts and API keys would otherwise cross the network in clear text;
// https always verifies the server certificate and host name. User names/passwords, queries and
// fragments in the URL are refused (pass keys with --api-key or A3S_POWER_API_KEY instead).
// Errors: Error(codes::kInvalidArgument) with a message that never repeats the URL's credentials.
#pragma once

#include <string>
#include <string_view>

namespace a3s::power::client {

class ServerUrl {
 public:
  static ServerUrl parse(std::string_view text);

  const std::string& scheme() const { return scheme_; }  // "http" | "https"
  const std::string& host() const { return host_; }      // as in the URL ("[::1]" for IPv6)
  int port() const { return port_; }                     // explicit or the scheme's default
  const std::string& prefix() const { return prefix_; }  // "" or "/path" without a trailing '/'

  // Absolute URL of an API path ("/v1/models" → "http://127.0.0.1:11434/v1/models").
  std::string endpoint(std::string_view path) const;
  // "scheme://host:port" for messages.
  std::string display() const;

 private:
  std::string scheme_, host_, prefix_;
  int port_ = 0;
};

// True for "localhost", IPv4 127.0.0.0/8 and IPv6 ::1 (with or without brackets).
bool is_loopback_host(std::string_view host);

}  // namespace a3s::power::client
