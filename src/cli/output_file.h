// OutputFile: writes a command's output file so that a reader never sees a partial one. Bytes go
// to a temporary file created next to the target (mode 0600, O_EXCL); commit() syncs it, sets its
// mode and renames it over the target. If commit() is not reached (an error), the temporary file
// is removed. Errors: Error("io_error") naming the target.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace a3s::power::cli {

class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  int fd() const { return fd_; }
  void write(const uint8_t* p, size_t n);
  // `mode` is applied as given (not masked by the umask).
  void commit(mode_t mode);

 private:
  std::string path_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace a3s::power::cli
