// Atomic file replacement: a reader of `path` sees the old file or the complete new one, never a part.
//
// The bytes go to a temporary file in the target's directory: an unnamed one (O_TMPFILE) when the
// filesystem allows, so a process killed before commit leaves nothing behind, else a named
// `<path>.tmp-XXXXXX` that is removed on every failure. Commit sets the permission mode (as given, not
// masked by the umask), fsyncs the file, gives an unnamed file a temporary name, renames it over
// `path` and fsyncs the directory. The target itself is never opened, so whatever `path` names
// (a regular file, a symbolic link) is replaced, not written through.
//
// Errors: a3s::power::Error with codes::kIo. By default the messages are
//   "cannot create temporary file in DIR: <strerror>", "cannot write FILE: …", "cannot set the mode of
//   FILE: …", "cannot fsync FILE: …", "cannot rename into PATH: …", "cannot open directory DIR: …",
//   "cannot fsync DIR: …"
// (FILE is the temporary file's name, or `path` while the file is unnamed). A caller with messages of
// its own passes an AtomicWriteErrorFn, which is given the failed step, the file above and errno, and
// throws; the default message is thrown if it returns.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace a3s::power {

enum class AtomicWriteStep {
  kCreate,         // creating the temporary file; the file is the directory
  kWrite,          // writing; the file is the temporary file
  kSetMode,        // fchmod
  kSync,           // fsync of the file
  kClose,          // close of the file
  kRename,         // naming the file and renaming it over the target; the file is the target
  kOpenDirectory,  // opening the directory to fsync it; the file is the directory
  kSyncDirectory,  // fsync of the directory
};

using AtomicWriteErrorFn = std::function<void(AtomicWriteStep step, const std::string& file, int err)>;

// A file written piece by piece and then committed over `path`. Destroying it before commit() (or
// after a failed commit) removes the temporary file. Not copyable.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::string path, AtomicWriteErrorFn on_error = {});
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // The temporary file (for callers that write with their own calls); -1 after commit().
  int fd() const { return fd_; }
  // Writes all of `bytes` (short writes and EINTR retried).
  void write(std::span<const uint8_t> bytes);
  // Sets `mode`, syncs and renames over the target; at most once.
  void commit(mode_t mode);

 private:
  [[noreturn]] void fail(AtomicWriteStep step, const std::string& file, int err) const;

  std::string path_, dir_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
  AtomicWriteErrorFn on_error_;
};

// Replaces `path` with `contents` (mode `mode`) through an AtomicFileWriter.
void write_file_atomically(const std::string& path, std::string_view contents, mode_t mode,
                           AtomicWriteErrorFn on_error = {});

}  // namespace a3s::power
