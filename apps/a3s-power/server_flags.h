// The flags every command that talks to a running `a3s-power serve` shares (chat, ps):
//   --url URL       the server (https, or http to a loopback host; default http://127.0.0.1:11434), or
//                   vsock://CID:PORT (its vsock listener: RA-TLS with --ratls-pin; plain HTTP to CID 1 only)
//   --api-key KEY   the API key (default: $A3S_POWER_API_KEY; prefer the variable: command lines are
//                   visible to other users)
//   --cacert PEM    CA certificates to trust for https instead of the system store
//   --ratls-pin sha256:HEX   the server's RA-TLS key, as a3s-power-verify --ratls printed it after
//                   verifying it (SHA-256 of the key's DER SubjectPublicKeyInfo, 64 hex digits): the
//                   connection must present exactly that key (https or vsock; instead of --cacert)
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "http_client/http_client.h"

namespace a3s::power::cli {

struct ServerFlags {
  std::string url = "http://127.0.0.1:11434";
  std::optional<std::string> api_key;
  std::string ca_file;
  std::optional<std::string> ratls_pin;
};

void add_server_flags(CLI::App* cmd, ServerFlags& flags);

// The options of the HttpClient: the parsed URL (throws Error(codes::kInvalidArgument) for one the
// client refuses), the API key of --api-key, else of $A3S_POWER_API_KEY, else none, and the CA file.
client::ClientOptions client_options(const ServerFlags& flags);

}  // namespace a3s::power::cli
