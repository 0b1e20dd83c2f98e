// A conversation with a model on the command line, shared by `run` (engine in process) and `chat`
// (over the HTTP API). The loop keeps the history (chat::Messages, starting with the system message
// when one is given) and asks a Responder for each assistant reply.
//
// Input modes:
//   one_shot     the prompt came on the command line: one turn, the reply and "\n" on stdout;
//   whole_input  stdin is not a terminal (`run`): all of it is one prompt (trailing line endings
//                removed);
//   lines        stdin is not a terminal (`chat`): each non-empty line is one user turn, each reply
//                is followed by "\n"; "/bye" ends, "/clear" forgets the history;
//   interactive  stdin is a terminal: ">>> " prompt, replies followed by a blank line, commands
//                /bye, /clear, /? (help); text between lines starting and ending with """ is one
//                multi-line message; Ctrl+C stops the reply being generated (or discards the line
//                being typed); EOF (Ctrl+D) ends. A failed turn prints "error: <message>" on stderr,
//                is dropped from the history and the session goes on, unless the error is fatal.
// In every other mode the first error propagates to the caller. No user text is ever written to
// stderr or logs; replies go to stdout only.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/error.h"
#include "a3s-power/line_reader.h"
#include "chat/messages.h"

namespace a3s::power::client {

struct Turn {
  const chat::Messages& messages;                     // the conversation, ending with the new user message
  const std::atomic<bool>* cancel;                    // raised by Ctrl+C (interactive only, else null)
  const std::function<void(std::string_view)>& emit;  // writes reply text to stdout as it arrives
};

// Produces the assistant reply for `turn.messages`, streaming it through `turn.emit`, and returns
// the whole reply text (what was emitted). When *turn.cancel becomes true it returns what it has.
// Throws Error on failure.
using Responder = std::function<std::string(const Turn& turn)>;

struct LoopOptions {
  std::optional<std::string> system;          // system message at the start of the history
  std::function<bool(const Error&)> fatal;    // errors that end an interactive session too
  std::function<void(std::string_view)> out;  // stdout writer (default: write_stdout)
  std::function<void(std::string_view)> err;  // stderr writer (default: write(2) to fd 2)
};

class ConversationLoop {
 public:
  ConversationLoop(LoopOptions opts, Responder respond);

  void one_shot(const std::string& prompt);
  void whole_input(LineReader& in);  // Error(codes::kInvalidArgument) when the input is empty
  void lines(LineReader& in);
  void interactive(LineReader& in);

  const chat::Messages& messages() const { return messages_; }

 private:
  enum class Command { None, Bye, Handled };
  Command command(const std::string& line, bool interactive);
  std::string turn(const std::string& text, const std::atomic<bool>* cancel);
  std::optional<std::string> read_multiline(LineReader& in, std::string first);
  void reset();

  LoopOptions opts_;
  Responder respond_;
  chat::Messages messages_;
};

// What `run` and `chat` do with standard input that is not a terminal.
enum class PipedInput { kWholeInput, kLines };

// One conversation as `run` and `chat` hold it: `prompt` given (words of the command line) → one
// turn of the words joined with " "; else stdin a terminal → interactive; else `piped`
// (whole_input or lines). Errors as the mode raises them.
void run_conversation(ConversationLoop& loop, const std::vector<std::string>& prompt, PipedInput piped);

// Writes all of `text` to stdout (fd 1), retrying after interruptions. Throws Error(codes::kIo).
void write_stdout(std::string_view text);

}  // namespace a3s::power::client
