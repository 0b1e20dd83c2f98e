// `a3s-power chat`: chat with a model served by a running `a3s-power serve`.
//
//   a3s-power chat NAME [PROMPT...] [--url http://127.0.0.1:11434] [--api-key K] [--cacert PEM]
//                  [--system TEXT] [--temperature T] [-n N] [--seed S]
//
// Sends the conversation to POST /v1/chat/completions with "stream": true and prints the reply's
// deltas as they arrive, keeping the history. PROMPT given: one turn, then exit. No PROMPT: stdin a
// terminal → interactive session (/bye, /clear, /?, Ctrl+D; see a3s-power/conversation_loop.h);
// otherwise each line of stdin is one user turn (scriptable).
// The API key comes from --api-key, else $A3S_POWER_API_KEY (prefer the variable: command lines
// are visible to other users). Errors: the server's error → "error: <message>", exit 1 (an
// interactive session prints it and goes on); no connection → exit 2; bad flags → exit 2.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "a3s/power/error.h"
#include "a3s-power/command.h"
#include "http_client/chat_stream.h"
#include "a3s-power/conversation_loop.h"
#include "http_client/http_client.h"
#include "http_client/http_client_built.h"
#include "a3s-power/not_built_command.h"
#include "a3s-power/server_flags.h"
#include "chat/messages.h"
#include "http_client/server_error.h"

namespace a3s::power::cli {
namespace {

struct ChatOptions {
  std::string model;
  std::vector<std::string> prompt;
  ServerFlags server;
  std::optional<std::string> system;
  std::optional<double> temperature;
  std::optional<int> max_tokens;
  std::optional<uint64_t> seed;
};

void run_chat(const ChatOptions& o) {
  if (o.model.empty()) throw Error(codes::kInvalidArgument, "the model name is empty");
  if (o.temperature && (*o.temperature < 0 || *o.temperature > 2)) {
    throw Error(codes::kInvalidArgument, "--temperature must be between 0 and 2");
  }
  if (o.max_tokens && *o.max_tokens < 1) throw Error(codes::kInvalidArgument, "-n must be at least 1");
  auto http = std::make_shared<client::HttpClient>(client_options(o.server));

  client::LoopOptions lo;
  lo.system = o.system;
  lo.fatal = [](const Error& e) { return e.kind() == codes::kServerUnreachable; };
  auto respond = [http, o](const client::Turn& t) {
    client::ChatRequest req;
    req.model = o.model;
    req.messages = chat::to_json(t.messages);
    req.temperature = o.temperature;
    req.max_tokens = o.max_tokens;
    req.seed = o.seed;
    return client::stream_chat(*http, req, t.emit, t.cancel).content;
  };
  client::ConversationLoop loop(lo, respond);
  client::run_conversation(loop, o.prompt, client::PipedInput::kLines);
}

}  // namespace

void add_chat_command(CLI::App& root) {
  constexpr const char* kDescription = "Chat with a model on a running server (streaming)";
  if (!client::http_client_built()) {
    add_not_built_command(root, "chat", kDescription, "built without libcurl");
    return;
  }
  auto o = std::make_shared<ChatOptions>();
  CLI::App* sub = root.add_subcommand("chat", kDescription);
  sub->add_option("model", o->model, "Model name as the server knows it")->required();
  sub->add_option("prompt", o->prompt,
                  "Prompt (one turn, then exit); without it: interactive or one turn per line");
  add_server_flags(sub, o->server);
  sub->add_option("--system", o->system, "System message");
  sub->add_option("--temperature", o->temperature, "Sampling temperature 0..2 (default: the server's)");
  sub->add_option("-n,--max-tokens", o->max_tokens, "Maximum tokens per reply (default: the server's)");
  sub->add_option("--seed", o->seed, "Sampling seed");
  sub->callback([o] { run_chat(*o); });
}

}  // namespace a3s::power::cli
