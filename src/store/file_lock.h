// Exclusive advisory locks between threads and processes: flock(2) on a lock file (each acquire
// opens its own file description, so two threads of one process exclude each other too).
//
// Two kinds of lock file:
//  - persistent (home/lock): created once, never removed;
//  - transient (staging/<key>.lock): the holder removes the file when it releases the lock and may
//    leave a short note in it first (the digest it produced). A waiter that then obtains the lock on
//    the removed file reads that note instead of redoing the work; otherwise it retries on the
//    current file. This keeps staging/ empty between pulls without racy lock-file cleanup.
// Errors throw Error(codes::kIo).
#pragma once

#include <string>
#include <string_view>

#include "store/file_io.h"

namespace a3s::power::store {

class FileLock {
 public:
  FileLock() = default;
  FileLock(FileLock&&) = default;
  FileLock& operator=(FileLock&& o) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() { release(); }

  // Blocks until the persistent lock file `path` (created 0600 if missing) is locked.
  static FileLock acquire(const std::string& path);

  // Blocks until the transient lock file `path` is locked by us, or until a holder that we waited
  // for released it with a non-empty note: then the returned lock is not held and *note is set.
  static FileLock acquire_transient(const std::string& path, std::string* note);

  bool held() const { return static_cast<bool>(fd_); }
  // Replaces the note (transient locks; read by waiters after release()).
  void write_note(std::string_view note);
  // Unlocks; a transient lock file is removed first. Idempotent, never throws.
  void release() noexcept;

 private:
  UniqueFd fd_;
  std::string path_;
  bool transient_ = false;
};

}  // namespace a3s::power::store
