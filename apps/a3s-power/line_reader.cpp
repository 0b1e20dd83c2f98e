#include "a3s-power/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "a3s/power/error.h"
#include "a3s-power/interrupt.h"

namespace a3s::power::client {

bool stdin_is_terminal() {
  return isatty(STDIN_FILENO) == 1;
}

bool LineReader::fill() {
  if (eof_) return false;
  char buf[4096];
  for (;;) {
    if (interrupt_flag().exchange(false)) {  // Ctrl+C that arrived just before this read
      interrupted_ = true;
      return false;
    }
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      if (buffer_.size() + static_cast<std::size_t>(n) > max_bytes_) {
        throw Error(codes::kInvalidArgument, "the input is too large");
      }
      buffer_.append(buf, static_cast<std::size_t>(n));
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EINTR) continue;  // the flag check above decides
    throw Error(codes::kIo, std::string("cannot read standard input: ") + std::strerror(errno));
  }
}

LineReader::Status LineReader::read_line(std::string& line) {
  std::size_t scanned = 0;
  for (;;) {
    const std::size_t nl = buffer_.find('\n', scanned);
    if (nl != std::string::npos) {
      line.assign(buffer_, 0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return Status::Line;
    }
    scanned = buffer_.size();
    if (!fill()) {
      if (interrupted_) {
        interrupted_ = false;
        buffer_.clear();
        return Status::Interrupted;
      }
      if (buffer_.empty()) return Status::Eof;
      line = std::move(buffer_);
      buffer_.clear();
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return Status::Line;
    }
  }
}

std::string LineReader::read_all() {
  for (;;) {
    if (!fill()) {
      if (interrupted_) {
        interrupted_ = false;
        continue;  // outside an interactive session the default SIGINT ends the process anyway
      }
      break;
    }
  }
  std::string out = std::move(buffer_);
  buffer_.clear();
  return out;
}

}  // namespace a3s::power::client
