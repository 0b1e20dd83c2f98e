#include "a3s-power/server_flags.h"

#include <array>
#include <cstdlib>
#include <string_view>

#include "a3s/power/error.h"
#include "base/hex.h"
#include "crypto/base64.h"

namespace a3s::power::cli {

void add_server_flags(CLI::App* cmd, ServerFlags& flags) {
  cmd->add_option("--url", flags.url,
                  "Server URL (https, or http to a loopback host; vsock://CID:PORT with --ratls-pin, or plain to CID 1)")
      ->capture_default_str();
  cmd->add_option("--api-key", flags.api_key, "API key (default: $A3S_POWER_API_KEY)");
  cmd->add_option("--cacert", flags.ca_file,
                  "CA certificates (PEM) to trust for https (default: the system store)");
  cmd->add_option("--ratls-pin", flags.ratls_pin,
                  "sha256:HEX of the server's RA-TLS key (a3s-power-verify --ratls prints it): only a "
                  "connection presenting exactly that key is used");
}

namespace {
// "sha256:<64 hex>" → curl's "sha256//<base64>" form.
std::string curl_pin(const std::string& pin) {
  constexpr std::string_view kPrefix = "sha256:";
  std::array<uint8_t, 32> digest{};
  if (!std::string_view(pin).starts_with(kPrefix) || pin.size() != kPrefix.size() + 64 ||
      !decode_hex(std::string_view(pin).substr(kPrefix.size()), digest)) {
    throw Error(codes::kInvalidArgument, "--ratls-pin must be sha256: followed by 64 hex digits");
  }
  return "sha256//" + crypto::base64_encode(digest);
}
}  // namespace

client::ClientOptions client_options(const ServerFlags& flags) {
  std::string key;
  if (flags.api_key) {
    key = *flags.api_key;
  } else if (const char* env = std::getenv("A3S_POWER_API_KEY")) {
    key = env;
  }
  client::ClientOptions o{.url = client::ServerUrl::parse(flags.url), .api_key = std::move(key)};
  o.ca_file = flags.ca_file;
  if (flags.ratls_pin) {  // given, even empty: an empty pin is malformed, never "no pin"
    if (!flags.ca_file.empty()) throw Error(codes::kInvalidArgument, "--ratls-pin and --cacert contradict each other; give one");
    o.pinned_spki = curl_pin(*flags.ratls_pin);
  }
  return o;
}

}  // namespace a3s::power::cli
