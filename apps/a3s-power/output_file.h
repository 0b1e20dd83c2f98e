// OutputFile: writes a command's output file so that a reader never sees a partial one. Bytes go
// to an unnamed file (O_TMPFILE, mode 0600) in the target's directory; commit() sets its mode, syncs
// it, links it under a temporary name and renames that over the target. A process killed before
// commit() leaves nothing on disk (a filesystem without O_TMPFILE gets a named temporary file,
// removed when commit() is not reached). An existing target that is not a regular file (a device,
// FIFO or symbolic link) is refused with Error(codes::kInvalidArgument). Errors: Error(codes::kIo)
// naming the target.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/atomic_write.h"

namespace a3s::power::cli {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  int fd() const { return file_.fd(); }
  void write(const uint8_t* p, size_t n);
  // `mode` is applied as given (not masked by the umask).
  void commit(mode_t mode);

 private:
  std::string path_;
  AtomicFileWriter file_;
};

}  // namespace a3s::power::cli
