// Reading a small regular file whole (key files, signature files): opened with O_NONBLOCK and
// O_NOCTTY so a FIFO or a terminal named by mistake never blocks, then fstat must report a regular
// file; at most dst.size() bytes are read (EINTR retried). The caller owns the buffer, so a secret
// can be read straight into locked memory.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace a3s::power {

struct SmallFileRead {
  enum class Status {
    kOk,          // `size` bytes read; the file had no more
    kMissing,     // ENOENT
    kNotRegular,  // a directory, FIFO, device, socket
    kTooLarge,    // the file holds more than dst.size() bytes (nothing else is reported)
    kError,       // open or read failed: `error` is the errno
  };
  Status status = Status::kOk;
  size_t size = 0;
  int error = 0;
};

SmallFileRead read_small_file_into(const std::string& path, std::span<char> dst);

}  // namespace a3s::power
