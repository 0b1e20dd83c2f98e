#include "a3s-power/conversation_loop.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "a3s-power/interrupt.h"
#include "base/syscall.h"

namespace a3s::power::client {
namespace {

constexpr std::string_view kHelp =
    "Available commands:\n"
    "  /clear   Forget the conversation so far\n"
    "  /bye     Exit\n"
    "  /?       Show this help\n"
    "Use \"\"\" to begin and end a multi-line message. Ctrl+C stops a reply, Ctrl+D exits.\n";

constexpr std::string_view kTripleQuote = "\"\"\"";

void write_fd(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = retry_on_eintr([&] { return ::write(fd, text.data(), text.size()); });
    if (n > 0) {
      text.remove_prefix(static_cast<std::size_t>(n));
    } else {
      throw Error(codes::kIo, std::string("cannot write the output: ") + std::strerror(errno));
    }
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

void write_stdout(std::string_view text) {
  write_fd(STDOUT_FILENO, text);
}

ConversationLoop::ConversationLoop(LoopOptions opts, Responder respond)
    : opts_(std::move(opts)), respond_(std::move(respond)) {
  if (!opts_.out) opts_.out = write_stdout;
  if (!opts_.err) opts_.err = [](std::string_view t) { write_fd(STDERR_FILENO, t); };
  reset();
}

void ConversationLoop::reset() {
  messages_.clear();
  if (opts_.system) messages_.push_back(chat::text_message(chat::Role::kSystem, *opts_.system));
}

std::string ConversationLoop::turn(const std::string& text, const std::atomic<bool>* cancel) {
  messages_.push_back(chat::text_message(chat::Role::kUser, text));
  bool emitted = false;
  const std::function<void(std::string_view)> emit = [this, &emitted](std::string_view t) {
    if (!t.empty()) emitted = true;
    opts_.out(t);
  };
  std::string reply;
  try {
    reply = respond_(Turn{messages_, cancel, emit});
  } catch (...) {
    messages_.pop_back();                // the failed turn is not part of the conversation
    if (emitted) opts_.out("\n");           // end the partial reply before the error is shown
    throw;
  }
  messages_.push_back(chat::text_message(chat::Role::kAssistant, reply));
  return reply;
}

ConversationLoop::Command ConversationLoop::command(const std::string& line, bool interactive) {
  if (line.empty() || line.front() != '/') return Command::None;
  const std::string_view cmd = trim(line);
  if (cmd == "/bye" || cmd == "/exit") return Command::Bye;
  if (cmd == "/clear") {
    reset();
    if (interactive) opts_.out("Cleared session context\n");
    return Command::Handled;
  }
  if (!interactive) return Command::None;  // scripted input: any other text is a message
  if (cmd == "/?" || cmd == "/help") {
    opts_.out(kHelp);
  } else {
    opts_.err("Unknown command (type /? for help)\n");
  }
  return Command::Handled;
}

void ConversationLoop::one_shot(const std::string& prompt) {
  turn(prompt, nullptr);
  opts_.out("\n");
}

void ConversationLoop::whole_input(LineReader& in) {
  std::string prompt = in.read_all();
  while (!prompt.empty() && (prompt.back() == '\n' || prompt.back() == '\r')) prompt.pop_back();
  if (trim(prompt).empty()) throw Error(codes::kInvalidArgument, "no prompt: standard input is empty");
  one_shot(prompt);
}

void ConversationLoop::lines(LineReader& in) {
  std::string line;
  while (in.read_line(line) == LineReader::Status::Line) {
    if (trim(line).empty()) continue;
    Command c = command(line, /*interactive=*/false);
    if (c == Command::Bye) return;
    if (c == Command::Handled) continue;
    turn(line, nullptr);
    opts_.out("\n");
  }
}

// The rest of a multi-line message whose first line (after the opening """) is `first`: lines up
// to one ending with """. nullopt when Ctrl+C discarded it.
std::optional<std::string> ConversationLoop::read_multiline(LineReader& in, std::string first) {
  std::vector<std::string> parts;
  auto closes = [](std::string_view t) { return t.size() >= 3 && t.substr(t.size() - 3) == kTripleQuote; };
  std::string_view t = trim(first);
  bool closed = closes(t);
  parts.emplace_back(closed ? t.substr(0, t.size() - 3) : std::string_view(first));
  while (!closed) {
    opts_.out("... ");
    std::string more;
    const LineReader::Status s = in.read_line(more);
    if (s == LineReader::Status::Interrupted) return std::nullopt;
    if (s == LineReader::Status::Eof) break;
    t = trim(more);
    closed = closes(t);
    parts.emplace_back(closed ? t.substr(0, t.size() - 3) : std::string_view(more));
  }
  std::string body;
  for (const auto& p : parts) {
    if (p.empty() && body.empty()) continue;  // nothing after the opening """
    if (!body.empty()) body.push_back('\n');
    body.append(p);
  }
  return body;
}

void ConversationLoop::interactive(LineReader& in) {
  InterruptScope interrupts;
  std::atomic<bool>& flag = interrupt_flag();
  std::string line;
  for (;;) {
    opts_.out(">>> ");
    LineReader::Status st = in.read_line(line);
    if (st == LineReader::Status::Eof) {
      opts_.out("\n");
      return;
    }
    if (st == LineReader::Status::Interrupted) {
      opts_.out("\nUse Ctrl+D or /bye to exit.\n");
      continue;
    }
    std::string text = line;
    if (trim(text).substr(0, 3) == kTripleQuote) {
      std::optional<std::string> body = read_multiline(in, std::string(trim(text).substr(3)));
      if (!body) {
        opts_.out("\n");
        continue;
      }
      text = std::move(*body);
    } else {
      Command c = command(text, /*interactive=*/true);
      if (c == Command::Bye) return;
      if (c == Command::Handled) continue;
    }
    if (trim(text).empty()) continue;

    flag.store(false);
    try {
      turn(text, &flag);
    } catch (const Error& e) {
      flag.store(false);
      if (opts_.fatal && opts_.fatal(e)) throw;
      opts_.err("error: " + std::string(e.what()) + "\n");
      continue;
    }
    flag.store(false);  // a Ctrl+C only stopped this reply
    opts_.out("\n\n");
  }
}

void run_conversation(ConversationLoop& loop, const std::vector<std::string>& prompt, PipedInput piped) {
  if (!prompt.empty()) {
    std::string text;
    for (const auto& p : prompt) text += (text.empty() ? "" : " ") + p;
    loop.one_shot(text);
    return;
  }
  LineReader in(0);
  if (stdin_is_terminal()) {
    loop.interactive(in);
  } else if (piped == PipedInput::kWholeInput) {
    loop.whole_input(in);
  } else {
    loop.lines(in);
  }
}

}  // namespace a3s::power::client
