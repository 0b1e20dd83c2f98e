// The endorsement cache: keys, immutable entries, expiry at nextUpdate, entries that do not belong to
// the URL asked for.
#include "verify/online/endorsement_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"

namespace a3s::power::verify::online {
namespace {

using TempDir = ::a3s::power::testing::TempDir;  // support/temp_dir.h

const std::string kUrl = "https://kdsintf.amd.com/vcek/v1/Milan/00?blSPL=01&teeSPL=00&snpSPL=08&ucodeSPL=115";

TEST(EndorsementCache, KeyIsTheSha256OfTheUrl) {
  EXPECT_EQ(EndorsementCache::key("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(EndorsementCache, EntryWithoutExpiryIsKeptForever) {
  TempDir dir;
  const EndorsementCache cache(dir.path() + "/sub");  // created on first store
  EXPECT_FALSE(cache.lookup(kUrl, 0).has_value());
  ASSERT_TRUE(cache.store(kUrl, {std::string("\x30\x82\x00", 3), {}, std::nullopt}));
  const auto hit = cache.lookup(kUrl, 4'000'000'000);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->body, std::string("\x30\x82\x00", 3));
  EXPECT_FALSE(hit->expires.has_value());
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/sub/" + EndorsementCache::key(kUrl) + ".body"));
}

TEST(EndorsementCache, EntryExpiresAtItsNextUpdate) {
  TempDir dir;
  const EndorsementCache cache(dir.path());
  ASSERT_TRUE(cache.store(kUrl, {"{}", {{"tcb-info-issuer-chain", "%0A"}}, std::time_t{1000}}));
  const auto fresh = cache.lookup(kUrl, 999);
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(fresh->headers, (std::vector<std::pair<std::string, std::string>>{{"tcb-info-issuer-chain", "%0A"}}));
  EXPECT_EQ(fresh->expires, std::optional<std::time_t>(1000));
  EXPECT_FALSE(cache.lookup(kUrl, 1000).has_value());
  EXPECT_FALSE(cache.lookup(kUrl, 5000).has_value());
}

TEST(EndorsementCache, StoreReplacesAnEntry) {
  TempDir dir;
  const EndorsementCache cache(dir.path());
  ASSERT_TRUE(cache.store(kUrl, {"old", {}, std::time_t{1000}}));
  ASSERT_TRUE(cache.store(kUrl, {"new", {}, std::time_t{3000}}));
  ASSERT_TRUE(cache.lookup(kUrl, 2000).has_value());
  EXPECT_EQ(cache.lookup(kUrl, 2000)->body, "new");
}

TEST(EndorsementCache, EntryOfAnotherUrlIsNotUsed) {
  TempDir dir;
  const EndorsementCache cache(dir.path());
  const std::string other = kUrl + "0";
  ASSERT_TRUE(cache.store(other, {"x", {}, std::nullopt}));
  // Put the other URL's metadata under kUrl's name: the recorded URL does not match.
  std::filesystem::copy_file(dir.path() + "/" + EndorsementCache::key(other) + ".json",
                             dir.path() + "/" + EndorsementCache::key(kUrl) + ".json");
  std::filesystem::copy_file(dir.path() + "/" + EndorsementCache::key(other) + ".body",
                             dir.path() + "/" + EndorsementCache::key(kUrl) + ".body");
  EXPECT_FALSE(cache.lookup(kUrl, 0).has_value());
}

TEST(EndorsementCache, CorruptMetadataIsAMiss) {
  TempDir dir;
  const EndorsementCache cache(dir.path());
  ASSERT_TRUE(cache.store(kUrl, {"x", {}, std::nullopt}));
  std::ofstream(dir.path() + "/" + EndorsementCache::key(kUrl) + ".json") << "{not json";
  EXPECT_FALSE(cache.lookup(kUrl, 0).has_value());
}

TEST(EndorsementCache, EmptyDirectoryDisablesTheCache) {
  const EndorsementCache cache("");
  EXPECT_FALSE(cache.store(kUrl, {"x", {}, std::nullopt}));
  EXPECT_FALSE(cache.lookup(kUrl, 0).has_value());
}

TEST(EndorsementCache, DefaultDirectory) {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_xdg ? old_xdg : "";
  ::setenv("XDG_CACHE_HOME", "/var/cache/me", 1);
  EXPECT_EQ(default_cache_dir(), "/var/cache/me/a3s-power-verify");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_cache_dir(), "/home/u/.cache/a3s-power-verify");
  if (old_xdg) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

}  // namespace
}  // namespace a3s::power::verify::online
