// Line input for the conversation commands, read with read(2) so that Ctrl+C (see interrupt.h)
// interrupts a pending read. Lines end with "\n" (a preceding "\r" is dropped); a last line
// without a newline is still returned before end of input.
#pragma once

#include <cstddef>
#include <string>

namespace a3s::power::client {

class LineReader {
 public:
  enum class Status { Line, Eof, Interrupted };

  // Reads from `fd` (not owned). Lines and whole inputs above `max_bytes` are refused
  // (Error "invalid_argument").
  explicit LineReader(int fd = 0, std::size_t max_bytes = 64u << 20) : fd_(fd), max_bytes_(max_bytes) {}

  // The next line without its ending. Interrupted: interrupt_flag() was raised while waiting (the
  // flag is cleared and any partial line discarded). Throws Error(codes::kIo) on a read error.
  Status read_line(std::string& line);

  // Everything up to end of input (after what read_line already consumed).
  std::string read_all();

 private:
  bool fill();  // false at end of input; may leave interrupted_ set

  int fd_;
  std::size_t max_bytes_;
  std::string buffer_;
  bool eof_ = false;
  bool interrupted_ = false;
};

// Whether standard input is a terminal.
bool stdin_is_terminal();

}  // namespace a3s::power::client
