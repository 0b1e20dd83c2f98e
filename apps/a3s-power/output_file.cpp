#include "a3s-power/output_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "a3s/power/error.h"
#include "base/printable.h"

namespace a3s::power::cli {
namespace {

[[noreturn]] void io_fail(const std::string& what, const std::string& path, int err) {
  throw Error(codes::kIo, what + " '" + printable_name(path) + "': " + std::strerror(err));
}

// The target must not be anything but a regular file: never a device (/dev/null), a FIFO or a
// symbolic link.
std::string checked_target(std::string path) {
  if (path.empty()) throw Error(codes::kInvalidArgument, "the output path is empty");
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    throw Error(codes::kInvalidArgument,
                "the output '" + printable_name(path) + "' exists and is not a regular file; refusing to replace it");
  }
  return path;
}

AtomicWriteErrorFn output_file_errors(const std::string& path) {
  return [path](AtomicWriteStep step, const std::string&, int err) {
    switch (step) {
      case AtomicWriteStep::kCreate:
      case AtomicWriteStep::kRename:
        io_fail("cannot create the output file", path, err);
      case AtomicWriteStep::kSetMode:
        io_fail("cannot set the mode of the output file", path, err);
      default:
        io_fail("cannot write the output file", path, err);
    }
  };
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(checked_target(std::move(path))), file_(path_, output_file_errors(path_)) {}

OutputFile::~OutputFile() = default;

void OutputFile::write(const uint8_t* p, size_t n) { file_.write(std::span<const uint8_t>(p, n)); }

void OutputFile::commit(mode_t mode) { file_.commit(mode); }

}  // namespace a3s::power::cli
