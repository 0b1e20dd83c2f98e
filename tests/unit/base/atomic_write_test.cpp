#include "base/atomic_write.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "a3s/power/error.h"

namespace a3s::power {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("a3s_atomic_write_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
  }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  static mode_t mode_of(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0);
    return st.st_mode & 07777;
  }

  fs::path dir_;
};

TEST_F(AtomicWrite, WritesANewFileWithTheGivenMode) {
  const fs::path p = dir_ / "a.json";
  write_file_atomically(p.string(), "hello\n", 0640);
  EXPECT_EQ(slurp(p), "hello\n");
  EXPECT_EQ(mode_of(p), 0640u);
  EXPECT_EQ(entries(), 1u);  // no temporary file is left
}

TEST_F(AtomicWrite, ReplacesAnExistingFile) {
  const fs::path p = dir_ / "a.json";
  write_file_atomically(p.string(), "old old old", 0600);
  write_file_atomically(p.string(), "new", 0600);
  EXPECT_EQ(slurp(p), "new");
  EXPECT_EQ(mode_of(p), 0600u);
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicWrite, ReplacesASymbolicLinkInsteadOfWritingThroughIt) {
  const fs::path target = dir_ / "target";
  write_file_atomically(target.string(), "target", 0600);
  const fs::path link = dir_ / "link";
  fs::create_symlink(target, link);
  write_file_atomically(link.string(), "replaced", 0600);
  EXPECT_FALSE(fs::is_symlink(link));
  EXPECT_EQ(slurp(link), "replaced");
  EXPECT_EQ(slurp(target), "target");
}

TEST_F(AtomicWrite, MissingDirectoryIsAnIoError) {
  const fs::path p = dir_ / "missing" / "a.json";
  try {
    write_file_atomically(p.string(), "x", 0600);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
    EXPECT_EQ(std::string(e.what()),
              "cannot create temporary file in " + (dir_ / "missing").string() + ": " + std::strerror(ENOENT));
  }
  EXPECT_FALSE(fs::exists(p));
}

TEST_F(AtomicWrite, RenameFailureLeavesNothingBehind) {
  const fs::path p = dir_ / "busy";
  fs::create_directories(p / "child");  // rename(2) of a file over a non-empty directory fails
  try {
    write_file_atomically(p.string(), "x", 0600);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), codes::kIo);
    EXPECT_EQ(std::string(e.what()).rfind("cannot rename into " + p.string() + ": ", 0), 0u) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(p / "child"));
  EXPECT_EQ(entries(), 1u);  // the temporary file was removed
}

TEST_F(AtomicWrite, CallerMessagesReplaceTheDefaultOnes) {
  const fs::path p = dir_ / "missing" / "a.json";
  AtomicWriteStep seen = AtomicWriteStep::kWrite;
  int seen_err = 0;
  try {
    write_file_atomically(p.string(), "x", 0600, [&](AtomicWriteStep step, const std::string&, int err) {
      seen = step;
      seen_err = err;
      throw Error(codes::kIo, "my message");
    });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "my message");
  }
  EXPECT_EQ(seen, AtomicWriteStep::kCreate);
  EXPECT_EQ(seen_err, ENOENT);
}

TEST_F(AtomicWrite, AWriterThatIsNotCommittedLeavesNothing) {
  const fs::path p = dir_ / "out.bin";
  {
    AtomicFileWriter w(p.string());
    const uint8_t bytes[] = {1, 2, 3};
    w.write(bytes);
    EXPECT_GE(w.fd(), 0);
  }
  EXPECT_FALSE(fs::exists(p));
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicWrite, AWriterCommitsPiecesInOrder) {
  const fs::path p = dir_ / "out.bin";
  AtomicFileWriter w(p.string());
  w.write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("ab"), 2));
  w.write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("cd"), 2));
  EXPECT_FALSE(fs::exists(p));  // nothing under the final name before commit
  w.commit(0644);
  EXPECT_EQ(w.fd(), -1);
  EXPECT_EQ(slurp(p), "abcd");
  EXPECT_EQ(mode_of(p), 0644u);
  EXPECT_EQ(entries(), 1u);
}

}  // namespace
}  // namespace a3s::power
