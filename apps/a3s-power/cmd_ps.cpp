// `a3s-power ps`: the models a running server serves, with their size, context and state.
//
//   a3s-power ps [--url http://127.0.0.1:11434] [--api-key K] [--cacert PEM] [--format table|json]
//
// Reads GET /health (falls back to GET /v1/models); see a3s-power/model_status.h for the columns and
// the JSON shape. Errors: the server's error → exit 1; no connection → exit 2.
#include <memory>
#include <string>

#include "a3s-power/command.h"
#include "a3s-power/conversation_loop.h"
#include "http_client/http_client.h"
#include "http_client/http_client_built.h"
#include "a3s-power/not_built_command.h"
#include "a3s-power/model_status.h"
#include "a3s-power/server_flags.h"

namespace a3s::power::cli {
namespace {

struct PsOptions {
  ServerFlags server;
  std::string format = "table";
};

void run_ps(const PsOptions& o) {
  client::HttpClient http(client_options(o.server));
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
  constexpr const char* kDescription = "List the models of a running server and whether they are loaded";
  if (!client::http_client_built()) {
    add_not_built_command(root, "ps", kDescription, "built without libcurl");
    return;
  }
  auto o = std::make_shared<PsOptions>();
  CLI::App* sub = root.add_subcommand("ps", kDescription);
  add_server_flags(sub, o->server);
  sub->add_option("--format", o->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sub->callback([o] { run_ps(*o); });
}

}  // namespace a3s::power::cli
