#include "a3s-power/server_flags.h"

#include <cstdlib>

namespace a3s::power::cli {

void add_server_flags(CLI::App* cmd, ServerFlags& flags) {
  cmd->add_option("--url", flags.url, "Server URL (https, or http to a loopback host)")
      ->capture_default_str();
  cmd->add_option("--api-key", flags.api_key, "API key (default: $A3S_POWER_API_KEY)");
  cmd->add_option("--cacert", flags.ca_file,
                  "CA certificates (PEM) to trust for https (default: the system store)");
}

client::ClientOptions client_options(const ServerFlags& flags) {
  std::string key;
  if (flags.api_key) {
    key = *flags.api_key;
  } else if (const char* env = std::getenv("A3S_POWER_API_KEY")) {
    key = env;
  }
  client::ClientOptions o{.url = client::ServerUrl::parse(flags.url), .api_key = std::move(key)};
  o.ca_file = flags.ca_file;
  return o;
}

}  // namespace a3s::power::cli
