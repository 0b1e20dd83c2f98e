// `a3s-power ps`: the models a running server serves, with their size, context and state.
//
//   a3s-power ps [--url http://127.0.0.1:11434] [--api-key K] [--cacert PEM] [--format table|json]
//
// Reads GET /health (falls back to GET /v1/models); see a3s-power/model_status.h for the columns and
// the JSON shape. Errors: the server's error → exit 1; no connection → exit 2.
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "a3s-power/command.h"
#include "a3s-power/conversation_loop.h"
#include "http_client/http_client.h"
#include "a3s-power/model_status.h"

namespace a3s::power::cli {
namespace {

struct PsOptions {
  std::string url = "http://127.0.0.1:11434";
  std::optional<std::string> api_key;
  std::string ca_file;
  std::string format = "table";
};

void run_ps(const PsOptions& o) {
  std::string key;
  if (o.api_key) {
    key = *o.api_key;
  } else if (const char* env = std::getenv("A3S_POWER_API_KEY")) {
    key = env;
  }
  client::ClientOptions co{.url = client::ServerUrl::parse(o.url), .api_key = key};
  co.ca_file = o.ca_file;
  client::HttpClient http(std::move(co));
  std::vector<client::ModelStatus> models = client::fetch_model_status(http);
  if (o.format == "json") {
    client::write_stdout(client::model_status_json(models).dump(
                             2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                         "\n");
  } else {
    client::write_stdout(client::format_model_table(models));
  }
}

}  // namespace

void add_ps_command(CLI::App& root) {
  auto o = std::make_shared<PsOptions>();
  CLI::App* sub =
      root.add_subcommand("ps", "List the models of a running server and whether they are loaded");
  sub->add_option("--url", o->url, "Server URL (https, or http to a loopback host)")->capture_default_str();
  sub->add_option("--api-key", o->api_key, "API key (default: $A3S_POWER_API_KEY)");
  sub->add_option("--cacert", o->ca_file,
                  "CA certificates (PEM) to trust for https (default: the system store)");
  sub->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sub->callback([o] { run_ps(*o); });
}

}  // namespace a3s::power::cli
