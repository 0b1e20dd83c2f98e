#include "base/small_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

namespace a3s::power {
namespace {

using Status = SmallFileRead::Status;

class SmallFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("a3s-small-file-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(SmallFile, ReadsTheWholeFileUpToTheBufferSize) {
  char buf[8];
  SmallFileRead r = read_small_file_into(write("exact", "12345678"), buf);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_EQ(std::string(buf, r.size), "12345678");
  r = read_small_file_into(write("short", "abc"), buf);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_EQ(std::string(buf, r.size), "abc");
  r = read_small_file_into(write("empty", ""), buf);
  ASSERT_EQ(r.status, Status::kOk);
  EXPECT_EQ(r.size, 0u);
}

TEST_F(SmallFile, OneByteTooManyIsTooLarge) {
  char buf[8];
  EXPECT_EQ(read_small_file_into(write("nine", "123456789"), buf).status, Status::kTooLarge);
}

TEST_F(SmallFile, MissingDirectoryAndFifoAreReportedWithoutBlocking) {
  char buf[8];
  const SmallFileRead missing = read_small_file_into((dir_ / "nope").string(), buf);
  EXPECT_EQ(missing.status, Status::kMissing);
  EXPECT_EQ(missing.error, ENOENT);
  EXPECT_EQ(read_small_file_into(dir_.string(), buf).status, Status::kNotRegular);
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_small_file_into(fifo, buf).status, Status::kNotRegular);  // the open does not wait for a writer
}

TEST_F(SmallFile, AnOpenFailureIsAnErrorWithItsErrno) {
  const std::string file = write("plain", "x");
  char buf[8];
  const SmallFileRead r = read_small_file_into(file + "/child", buf);  // a file used as a directory
  EXPECT_EQ(r.status, Status::kError);
  EXPECT_EQ(r.error, ENOTDIR);
}

}  // namespace
}  // namespace a3s::power
