// Pulling into the model store over loopback HTTP and from local paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "a3s/power/error.h"
#include "support/fake_http_server.h"
#include "support/process.h"
#include "store/sha256_hasher.h"
#include "store/store.h"
#include "support/store_test_support.h"

namespace a3s::power::store {
namespace {

using testing::dir_entries;
using testing::kStoriesSha256;
using testing::kStoriesSize;
using power::testing::FileHttpServer;
using testing::ScopedEnv;
using testing::TempDir;

const std::string kWrongSha(64, 'a');

PullOptions named(const std::string& name) {
  PullOptions o;
  o.name = name;
  return o;
}

std::string error_code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return "<no error>";
}

class StorePullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = testing::read_file(testing::stories_path());
    ASSERT_EQ(model_.size(), kStoriesSize) << "missing test model " << testing::stories_path();
    server_ = std::make_unique<FileHttpServer>(model_);
  }

  std::string home() const { return tmp_.path() + "/home"; }
  std::string blobs() const { return home() + "/blobs"; }
  std::string manifests() const { return home() + "/manifests"; }
  std::string staging() const { return home() + "/staging"; }
  std::string pinned_url() const { return server_->url() + "@sha256:" + kStoriesSha256; }

  void expect_store_empty() const {
    EXPECT_TRUE(dir_entries(blobs()).empty());
    EXPECT_TRUE(dir_entries(manifests()).empty());
    EXPECT_TRUE(dir_entries(staging()).empty());
  }

  void expect_stories_blob(const Store& s) const {
    const std::string blob = s.blob_path(std::string("sha256:") + kStoriesSha256);
    EXPECT_EQ(sha256_hex(testing::read_file(blob)), kStoriesSha256);
  }

  TempDir tmp_;
  std::string model_;
  std::unique_ptr<FileHttpServer> server_;
};

TEST_F(StorePullTest, PullWithCorrectPinWritesBlobAndManifest) {
  Store s(home());
  const Manifest m = s.pull(pinned_url(), {});
  EXPECT_EQ(m.name, "stories260K");
  EXPECT_EQ(m.digest, std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(m.size, kStoriesSize);
  EXPECT_EQ(m.format, "gguf");
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.quantization, "F32");
  EXPECT_EQ(m.source, server_->url());
  EXPECT_TRUE(testing::looks_like_rfc3339_utc(m.created)) << m.created;
  expect_stories_blob(s);
  EXPECT_TRUE(dir_entries(staging()).empty());
  EXPECT_EQ(server_->full_bodies_sent(), 1);

  const auto found = s.find("stories260K");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->digest, m.digest);
  EXPECT_EQ(found->created, m.created);
}

TEST_F(StorePullTest, PinFromOptionsAndNameOverride) {
  Store s(home());
  PullOptions o;
  o.sha256 = std::string("sha256:") + kStoriesSha256;
  o.name = "tiny/stories";
  const Manifest m = s.pull(server_->url(), o);
  EXPECT_EQ(m.name, "tiny/stories");
  EXPECT_TRUE(s.find("tiny/stories").has_value());
  EXPECT_FALSE(s.find("stories260K").has_value());
}

TEST_F(StorePullTest, ConflictingPinsAreRejected) {
  Store s(home());
  PullOptions o;
  o.sha256 = kWrongSha;
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), o); }), code_string(codes::kInvalidArgument));
  EXPECT_EQ(server_->request_count(), 0);
}

TEST_F(StorePullTest, WrongPinIsRejectedAndNothingIsLeft) {
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url() + "@sha256:" + kWrongSha, {}); }), "integrity_error");
  expect_store_empty();
  EXPECT_FALSE(s.find("stories260K").has_value());
  // A later correct pull is not affected by the failed one.
  EXPECT_NO_THROW(s.pull(pinned_url(), {}));
}

TEST_F(StorePullTest, WrongPinMessageNamesBothDigests) {
  Store s(home());
  try {
    s.pull(server_->url() + "@sha256:" + kWrongSha, {});
    FAIL() << "expected integrity_error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kStoriesSha256), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(kWrongSha), std::string::npos);
  }
}

TEST_F(StorePullTest, InterruptedDownloadResumesWithRange) {
  Store s(home());
  server_->cut_after(400000);
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), {}); }), code_string(codes::kIo));
  // The partial download is kept for the retry; nothing is published.
  const auto staged = dir_entries(staging());
  ASSERT_EQ(staged.size(), 1u);
  EXPECT_NE(staged[0].find(".partial"), std::string::npos);
  EXPECT_EQ(testing::read_file(staging() + "/" + staged[0]).size(), 400000u);
  EXPECT_TRUE(dir_entries(blobs()).empty());
  EXPECT_TRUE(dir_entries(manifests()).empty());

  const Manifest m = s.pull(pinned_url(), {});
  EXPECT_EQ(m.digest, std::string("sha256:") + kStoriesSha256);
  const auto ranges = server_->range_headers();
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0], "bytes=400000-");
  EXPECT_EQ(server_->request_count(), 2);
  EXPECT_EQ(server_->full_bodies_sent(), 0);  // neither response carried the whole file
  expect_stories_blob(s);
  EXPECT_TRUE(dir_entries(staging()).empty());
}

TEST_F(StorePullTest, InterruptedUnpinnedDownloadResumesAndHashesEverything) {
  Store s(home());
  server_->cut_after(123457);
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url(), {}); }), code_string(codes::kIo));
  const Manifest m = s.pull(server_->url(), {});
  EXPECT_EQ(m.digest, std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(server_->range_headers(), std::vector<std::string>{"bytes=123457-"});
}

TEST_F(StorePullTest, ServerIgnoringRangeRestartsFromZero) {
  Store s(home());
  server_->set_honour_range(false);
  server_->cut_after(300000);
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), {}); }), code_string(codes::kIo));
  const Manifest m = s.pull(pinned_url(), {});
  EXPECT_EQ(m.size, kStoriesSize);
  EXPECT_EQ(server_->range_headers().size(), 1u);  // asked for a range, got 200
  EXPECT_EQ(server_->full_bodies_sent(), 1);
  expect_stories_blob(s);
}

TEST_F(StorePullTest, CompleteStagedFileIsFinishedAfter416) {
  // A previous attempt received every byte but stopped before publishing the blob.
  std::filesystem::create_directories(staging());
  const std::string partial = staging() + "/" + sha256_hex(server_->url()) + ".partial";
  std::ofstream(partial, std::ios::binary) << model_;
  Store s(home());
  const Manifest m = s.pull(pinned_url(), {});
  EXPECT_EQ(m.size, kStoriesSize);
  EXPECT_EQ(server_->range_headers(), std::vector<std::string>{"bytes=1185376-"});
  EXPECT_EQ(server_->full_bodies_sent(), 0);
  expect_stories_blob(s);
  EXPECT_TRUE(dir_entries(staging()).empty());
}

TEST_F(StorePullTest, CorruptStagedPrefixFailsThePinAndIsDiscarded) {
  std::filesystem::create_directories(staging());
  const std::string partial = staging() + "/" + sha256_hex(server_->url()) + ".partial";
  std::ofstream(partial, std::ios::binary) << std::string(1000, '\0');
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), {}); }), "integrity_error");
  expect_store_empty();
  // The retry starts from zero and succeeds.
  EXPECT_EQ(s.pull(pinned_url(), {}).size, kStoriesSize);
}

TEST_F(StorePullTest, ConcurrentPullsOfTheSameBlobDownloadOnce) {
  Store s(home());
  server_->set_pause_per_chunk_us(2000);
  std::vector<std::string> results(3);
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      try {
        PullOptions o;
        o.name = "copy" + std::to_string(i);
        results[i] = Store(home()).pull(pinned_url(), o).digest;
      } catch (const std::exception& e) {
        results[i] = std::string("error: ") + e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(server_->full_bodies_sent(), 1);
  EXPECT_EQ(server_->request_count(), 1);
  EXPECT_EQ(s.list().size(), 3u);
  EXPECT_EQ(dir_entries(blobs()).size(), 1u);
  EXPECT_TRUE(dir_entries(staging()).empty());
}

TEST_F(StorePullTest, ConcurrentUnpinnedPullsOfTheSameUrlDownloadOnce) {
  server_->set_pause_per_chunk_us(2000);
  std::vector<std::string> results(2);
  std::vector<std::thread> threads;
  for (int i = 0; i < 2; ++i) {
    threads.emplace_back([&, i] {
      try {
        results[i] = Store(home()).pull(server_->url(), {}).digest;
      } catch (const std::exception& e) {
        results[i] = std::string("error: ") + e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : results) EXPECT_EQ(r, std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(server_->request_count(), 1);
}

TEST_F(StorePullTest, ConcurrentPullsFromTwoProcessesDownloadOnce) {
  server_->set_pause_per_chunk_us(2000);
  std::vector<pid_t> pids;
  for (int i = 0; i < 2; ++i) {
    const std::string name = "proc" + std::to_string(i);
    const std::string helper = A3S_STORE_PULL_HELPER;
    const std::string ref = pinned_url();
    const std::string h = home();
    power::testing::ChildStdio inherited;
    inherited.out = inherited.err = "";  // the helper writes to the test's own output
    pids.push_back(power::testing::spawn_process(helper, {h, ref, name}, power::testing::child_environment({}), inherited));
  }
  for (pid_t pid : pids) {
    const int status = power::testing::wait_for_exit(pid, std::chrono::minutes(5));
    EXPECT_EQ(status, 0) << "helper exit status " << status;
  }
  EXPECT_EQ(server_->request_count(), 1);
  EXPECT_EQ(server_->full_bodies_sent(), 1);
  Store s(home());
  EXPECT_TRUE(s.find("proc0").has_value());
  EXPECT_TRUE(s.find("proc1").has_value());
  EXPECT_TRUE(dir_entries(staging()).empty());
}

TEST_F(StorePullTest, PinnedBlobAlreadyPresentIsNotDownloaded) {
  Store s(home());
  s.pull(pinned_url(), {});
  PullOptions o;
  o.name = "again";
  const Manifest m = s.pull(server_->url("/elsewhere/other.gguf") + "@sha256:" + kStoriesSha256, o);
  EXPECT_EQ(m.digest, std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(server_->request_count(), 1);
}

TEST_F(StorePullTest, RepullOfSameSourceIsANoOpUnlessForced) {
  Store s(home());
  const Manifest first = s.pull(server_->url(), {});
  const Manifest second = s.pull(server_->url(), {});
  EXPECT_EQ(server_->request_count(), 1);
  EXPECT_EQ(second.created, first.created);
  PullOptions o;
  o.force = true;
  s.pull(server_->url(), o);
  EXPECT_EQ(server_->request_count(), 2);
  EXPECT_EQ(dir_entries(blobs()).size(), 1u);
}

TEST_F(StorePullTest, OfflineFailsWhenAbsentAndSucceedsWhenPresent) {
  Store s(home());
  PullOptions off;
  off.offline = true;
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), off); }), "offline");
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url(), off); }), "offline");
  EXPECT_EQ(server_->request_count(), 0);

  s.pull(pinned_url(), {});
  EXPECT_EQ(server_->request_count(), 1);
  EXPECT_EQ(s.pull(pinned_url(), off).name, "stories260K");    // pinned blob present
  EXPECT_EQ(s.pull(server_->url(), off).name, "stories260K");  // name present
  PullOptions other = off;
  other.name = "other-name";
  EXPECT_EQ(s.pull(pinned_url(), other).name, "other-name");  // pinned blob, new name
  // A pin that does not match the stored model fails closed.
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url() + "@sha256:" + kWrongSha, off); }), "offline");
  EXPECT_EQ(server_->request_count(), 1);
}

TEST_F(StorePullTest, OfflineEnvironmentVariableIsHonoured) {
  Store s(home());
  ScopedEnv env("A3S_POWER_OFFLINE", "1");
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), {}); }), "offline");
  EXPECT_EQ(server_->request_count(), 0);
}

TEST_F(StorePullTest, MaxBytesRefusesAnnouncedSize) {
  Store s(home());
  PullOptions o;
  o.max_bytes = 1000;
  EXPECT_EQ(error_code_of([&] { s.pull(pinned_url(), o); }), "size_limit_exceeded");
  expect_store_empty();
}

TEST_F(StorePullTest, MaxBytesAbortsUnannouncedStream) {
  Store s(home());
  server_->set_content_length(false);
  PullOptions o;
  o.max_bytes = 200000;
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url(), o); }), "size_limit_exceeded");
  expect_store_empty();
}

TEST_F(StorePullTest, MaxBytesEqualToSizeIsAccepted) {
  Store s(home());
  PullOptions o;
  o.max_bytes = kStoriesSize;
  EXPECT_EQ(s.pull(pinned_url(), o).size, kStoriesSize);
}

TEST_F(StorePullTest, CloseDelimitedBodyIsHashedCompletely) {
  Store s(home());
  server_->set_content_length(false);
  EXPECT_EQ(s.pull(pinned_url(), {}).size, kStoriesSize);
}

TEST_F(StorePullTest, NotFoundUrlIsModelNotFound) {
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url("/nothing/here.txt"), named("x")); }),
            code_string(codes::kModelNotFound));
  expect_store_empty();
}

TEST_F(StorePullTest, NonGgufBytesAreRejected) {
  Store s(home());
  server_->set_body(std::string(4096, 'x'));
  EXPECT_EQ(error_code_of([&] { s.pull(server_->url(), {}); }), code_string(codes::kInvalidModel));
  expect_store_empty();
}

TEST_F(StorePullTest, PlainHttpToNonLoopbackIsRefused) {
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.pull("http://example.com/model.gguf", {}); }), code_string(codes::kInvalidArgument));
}

TEST_F(StorePullTest, UnreachableHostIsIoError) {
  Store s(home());
  // Nothing listens on port 1 of the loopback interface.
  EXPECT_EQ(error_code_of([&] { s.pull("http://127.0.0.1:1/m.gguf", {}); }), code_string(codes::kIo));
  EXPECT_TRUE(dir_entries(staging()).empty());
}

TEST_F(StorePullTest, HuggingFaceReferenceResolvesToResolveMainUrl) {
  ScopedEnv env("HF_ENDPOINT", "http://127.0.0.1:" + std::to_string(server_->port()));
  Store s(home());
  const Manifest m =
      s.pull(std::string("hf://ggml-org/models/tinyllamas/stories260K.gguf@sha256:") + kStoriesSha256, {});
  EXPECT_EQ(m.name, "stories260K");
  EXPECT_EQ(m.source, "hf://ggml-org/models/tinyllamas/stories260K.gguf");
  EXPECT_EQ(server_->paths(),
            std::vector<std::string>{"/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf"});
}

TEST_F(StorePullTest, ProgressReportsStagesAndBytes) {
  Store s(home());
  std::vector<Progress> events;
  s.pull(pinned_url(), {}, [&](const Progress& p) { events.push_back(p); });
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.front().stage, "resolving");
  EXPECT_EQ(events.back().stage, "done");
  EXPECT_EQ(events.back().done, kStoriesSize);
  bool saw_full = false, saw_verifying = false;
  uint64_t last = 0;
  for (const auto& e : events) {
    if (e.stage == "downloading") {
      EXPECT_GE(e.done, last);
      last = e.done;
      if (e.done == kStoriesSize && e.total == kStoriesSize) saw_full = true;
    }
    saw_verifying |= e.stage == "verifying";
  }
  EXPECT_TRUE(saw_full);
  EXPECT_TRUE(saw_verifying);
}

TEST_F(StorePullTest, ThrowingProgressCallbackAbortsAndKeepsPartialForResume) {
  Store s(home());
  server_->set_pause_per_chunk_us(200);
  EXPECT_THROW(s.pull(pinned_url(), {},
                      [](const Progress& p) {
                        if (p.stage == "downloading" && p.done > 0) throw std::runtime_error("cancelled");
                      }),
               std::runtime_error);
  EXPECT_TRUE(dir_entries(blobs()).empty());
  EXPECT_EQ(dir_entries(staging()).size(), 1u);
  s.pull(pinned_url(), {});
  EXPECT_EQ(server_->range_headers().size(), 1u);
  expect_stories_blob(s);
}

TEST_F(StorePullTest, LocalPathPullCopiesAndHashes) {
  Store s(home());
  const Manifest m = s.pull(testing::stories_path(), {});
  EXPECT_EQ(m.name, "stories260K");
  EXPECT_EQ(m.digest, std::string("sha256:") + kStoriesSha256);
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.source.front(), '/');
  expect_stories_blob(s);
  EXPECT_TRUE(dir_entries(staging()).empty());
}

TEST_F(StorePullTest, LocalPathWrongPinLeavesNothing) {
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.pull(testing::stories_path() + "@sha256:" + kWrongSha, {}); }),
            "integrity_error");
  expect_store_empty();
}

TEST_F(StorePullTest, LocalPathMaxBytesAndMissingFile) {
  Store s(home());
  PullOptions o;
  o.max_bytes = 10;
  EXPECT_EQ(error_code_of([&] { s.pull(testing::stories_path(), o); }), "size_limit_exceeded");
  EXPECT_EQ(error_code_of([&] { s.pull(tmp_.path() + "/missing.gguf", {}); }), code_string(codes::kModelNotFound));
  EXPECT_EQ(error_code_of([&] { s.pull(tmp_.path(), named("dir")); }), code_string(codes::kInvalidArgument));
}

TEST_F(StorePullTest, LocalPathWorksOffline) {
  Store s(home());
  PullOptions o;
  o.offline = true;
  EXPECT_EQ(s.pull(testing::stories_path(), o).name, "stories260K");
}

TEST_F(StorePullTest, NamesThatEscapeAlikeStayDistinct) {
  Store s(home());
  PullOptions a, b;
  a.name = "org/repo:quant";
  b.name = "org-repo-quant";
  s.pull(testing::stories_path(), a);
  s.pull(testing::stories_path(), b);
  const auto all = s.list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "org-repo-quant");
  EXPECT_EQ(all[1].name, "org/repo:quant");
  EXPECT_EQ(dir_entries(manifests()).size(), 2u);
  EXPECT_EQ(s.find("org/repo:quant")->name, "org/repo:quant");
  EXPECT_EQ(s.find("org-repo-quant")->name, "org-repo-quant");
}

TEST_F(StorePullTest, InvalidNamesAreRejected) {
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.pull(testing::stories_path(), named("")); }), code_string(codes::kInvalidArgument));
  EXPECT_EQ(error_code_of([&] { s.pull(testing::stories_path(), named("a\nb")); }), code_string(codes::kInvalidArgument));
  EXPECT_EQ(error_code_of([&] { s.pull(testing::stories_path(), named(std::string(257, 'n'))); }),
            code_string(codes::kInvalidArgument));
  expect_store_empty();
}

TEST_F(StorePullTest, ListAndRemoveKeepSharedBlobsUntilUnused) {
  Store s(home());
  EXPECT_TRUE(s.list().empty());
  s.pull(testing::stories_path(), named("one"));
  s.pull(testing::stories_path(), named("two"));
  ASSERT_EQ(s.list().size(), 2u);
  EXPECT_FALSE(s.remove("unknown"));
  EXPECT_TRUE(s.remove("one"));
  EXPECT_FALSE(s.find("one").has_value());
  EXPECT_EQ(dir_entries(blobs()).size(), 1u);  // still used by "two"
  EXPECT_TRUE(s.remove("two"));
  EXPECT_TRUE(dir_entries(blobs()).empty());
  EXPECT_TRUE(s.list().empty());
  EXPECT_FALSE(s.remove("two"));
}

TEST_F(StorePullTest, RepointingANameCollectsTheOldBlob) {
  Store s(home());
  s.pull(testing::stories_path(), named("m"));
  const std::string other = std::string(A3S_TESTDATA_DIR) + "/models/tiny-llama-Q8_0.gguf";
  s.pull(other, named("m"));
  EXPECT_EQ(s.find("m")->quantization, "Q8_0");
  EXPECT_EQ(dir_entries(blobs()).size(), 1u);
}

TEST_F(StorePullTest, CorruptManifestIsIgnoredByListAndFind) {
  Store s(home());
  s.pull(testing::stories_path(), {});
  { std::ofstream(manifests() + "/broken.json") << "{not json"; }
  EXPECT_EQ(s.list().size(), 1u);
  EXPECT_FALSE(s.find("broken").has_value());
}

TEST_F(StorePullTest, BlobPathRejectsMalformedDigests) {
  Store s(home());
  EXPECT_EQ(error_code_of([&] { s.blob_path("sha256:xyz"); }), code_string(codes::kInvalidArgument));
  EXPECT_EQ(error_code_of([&] { s.blob_path("../../etc/passwd"); }), code_string(codes::kInvalidArgument));
  EXPECT_EQ(s.blob_path(std::string("sha256:") + kStoriesSha256), home() + "/blobs/sha256-" + kStoriesSha256);
}

}  // namespace
}  // namespace a3s::power::store
