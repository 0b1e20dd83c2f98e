// The prompt-prefix cache (runtime/prompt_cache.h): scopes differ in every field of the tuple and
// cannot be forged by moving bytes between fields; hits, misses and partial-prefix hits; the
// per-identity LRU limit never evicts another identity's entries; TTL expiry; the byte budget;
// entries of an unloaded model are dropped; every removed snapshot is freed and so wiped.
#include <gtest/gtest.h>

#include <vector>

#include "a3s/power/engine.h"
#include "runtime/prompt_cache.h"
#include "support/gguf_builder.h"

namespace a3s::power::runtime {
namespace prompt_cache_test {

class PromptCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = Model::load(testing::model_path("stories260K"), {.n_threads = 1});
    owner_ = std::make_shared<int>(0);
  }
  std::vector<Token> prompt(int n, Token base) {
    std::vector<Token> t;
    for (int i = 0; i < n; ++i) t.push_back(static_cast<Token>(base + i % 50));
    return t;
  }
  std::shared_ptr<const KvSnapshot> snap(const std::vector<Token>& p) {
    Context ctx(model_, {.n_ctx = 128});
    ctx.eval(p);
    return ctx.snapshot(static_cast<int>(p.size()));
  }
  PromptCacheOptions opts(int max_entries) {
    PromptCacheOptions o;
    o.max_entries = max_entries;
    o.sweeper = false;
    return o;
  }
  std::shared_ptr<Model> model_;
  std::shared_ptr<int> owner_;  // stands for the loaded model runtime
};

TEST_F(PromptCacheTest, ScopesDifferInEveryFieldAndAreLengthPrefixed) {
  PromptCache c(opts(1));
  PromptCache other(opts(1));
  const CacheDigest s = c.scope("alice", "/v1/completions", "sha256:ab", "k");
  EXPECT_EQ(s, c.scope("alice", "/v1/completions", "sha256:ab", "k"));
  EXPECT_NE(s, c.scope("bob", "/v1/completions", "sha256:ab", "k"));
  EXPECT_NE(s, c.scope("alice", "/v1/chat/completions", "sha256:ab", "k"));
  EXPECT_NE(s, c.scope("alice", "/v1/completions", "sha256:cd", "k"));
  EXPECT_NE(s, c.scope("alice", "/v1/completions", "sha256:ab", "k2"));
  EXPECT_NE(c.scope("ab", "c", "m", "k"), c.scope("a", "bc", "m", "k")) << "no field runs into the next";
  EXPECT_NE(s, other.scope("alice", "/v1/completions", "sha256:ab", "k")) << "the secret is per cache (per boot)";
  EXPECT_NE(c.identity_tag("alice"), c.identity_tag("bob"));
}

TEST_F(PromptCacheTest, HitMissAndPartialPrefix) {
  PromptCache c(opts(4));
  const CacheDigest s = c.scope("a", "e", "m", "k"), id = c.identity_tag("a");
  const std::vector<Token> p = prompt(40, 10);
  EXPECT_FALSE(c.lookup(s, owner_, p).snapshot) << "empty cache";
  ASSERT_TRUE(c.store(s, id, owner_, snap(p)));

  PromptCache::Hit same = c.lookup(s, owner_, p);
  ASSERT_TRUE(same.snapshot);
  EXPECT_EQ(same.n, 39) << "one token is left to evaluate";

  std::vector<Token> longer = p;
  longer.insert(longer.end(), {3, 4, 5});
  EXPECT_EQ(c.lookup(s, owner_, longer).n, 40);

  std::vector<Token> diverging = p;
  diverging[25] = 1;
  EXPECT_EQ(c.lookup(s, owner_, diverging).n, 25) << "the longest common prefix";

  std::vector<Token> unrelated = prompt(40, 70);
  EXPECT_FALSE(c.lookup(s, owner_, unrelated).snapshot);
  EXPECT_FALSE(c.lookup(c.scope("a", "e", "m", "other"), owner_, p).snapshot) << "another key";
  EXPECT_FALSE(c.lookup(c.scope("b", "e", "m", "k"), owner_, p).snapshot) << "another identity";
  EXPECT_FALSE(c.lookup(s, std::make_shared<int>(1), p).snapshot) << "another model";

  const PromptCacheStats st = c.stats();
  EXPECT_EQ(st.requests, 8u);
  EXPECT_EQ(st.hits, 3u);
  EXPECT_EQ(st.misses, 5u);
  EXPECT_EQ(st.reused_tokens, 39u + 40u + 25u);
  EXPECT_EQ(st.resident, 1u);
}

TEST_F(PromptCacheTest, PerIdentityLruNeverEvictsAnotherIdentity) {
  PromptCache c(opts(2));
  const CacheDigest a = c.identity_tag("a"), b = c.identity_tag("b");
  const CacheDigest a1 = c.scope("a", "e", "m", "1"), a2 = c.scope("a", "e", "m", "2"), a3 = c.scope("a", "e", "m", "3");
  const CacheDigest b1 = c.scope("b", "e", "m", "1");
  const std::vector<Token> p = prompt(20, 5);
  ASSERT_TRUE(c.store(b1, b, owner_, snap(p)));
  ASSERT_TRUE(c.store(a1, a, owner_, snap(p)));
  ASSERT_TRUE(c.store(a2, a, owner_, snap(p)));
  ASSERT_TRUE(c.lookup(a1, owner_, p).snapshot);  // a1 is now more recent than a2
  const uint64_t wiped = KvSnapshot::wiped_total();
  ASSERT_TRUE(c.store(a3, a, owner_, snap(p)));
  EXPECT_EQ(KvSnapshot::wiped_total(), wiped + 1) << "the evicted snapshot was freed and wiped";
  EXPECT_FALSE(c.lookup(a2, owner_, p).snapshot) << "a's least recently used entry went";
  EXPECT_TRUE(c.lookup(a1, owner_, p).snapshot);
  EXPECT_TRUE(c.lookup(a3, owner_, p).snapshot);
  EXPECT_TRUE(c.lookup(b1, owner_, p).snapshot) << "b's entry is untouched by a's evictions";
  EXPECT_EQ(c.stats().evictions, 1u);
  EXPECT_EQ(c.stats().resident, 3u);
}

TEST_F(PromptCacheTest, ReplacingAScopesEntryIsNotAnEviction) {
  PromptCache c(opts(1));
  const CacheDigest s = c.scope("a", "e", "m", "k"), id = c.identity_tag("a");
  ASSERT_TRUE(c.store(s, id, owner_, snap(prompt(20, 5))));
  ASSERT_TRUE(c.store(s, id, owner_, snap(prompt(20, 60))));
  EXPECT_EQ(c.stats().resident, 1u);
  EXPECT_EQ(c.stats().evictions, 0u);
  EXPECT_EQ(c.lookup(s, owner_, prompt(20, 60)).n, 19);
}

TEST_F(PromptCacheTest, EntriesExpireAfterTheTtlSinceLastUse) {
  PromptCacheOptions o = opts(4);
  o.ttl = std::chrono::milliseconds(10'000);
  PromptCache c(o);
  const CacheDigest s = c.scope("a", "e", "m", "k"), id = c.identity_tag("a");
  const std::vector<Token> p = prompt(20, 5);
  ASSERT_TRUE(c.store(s, id, owner_, snap(p)));
  c.advance_clock_for_testing(std::chrono::milliseconds(6'000));
  c.expire_now();
  ASSERT_TRUE(c.lookup(s, owner_, p).snapshot) << "not expired yet; the hit refreshes it";
  c.advance_clock_for_testing(std::chrono::milliseconds(6'000));
  c.expire_now();
  EXPECT_EQ(c.stats().resident, 1u);
  const uint64_t wiped = KvSnapshot::wiped_total();
  c.advance_clock_for_testing(std::chrono::milliseconds(5'000));
  c.expire_now();
  EXPECT_EQ(c.stats().resident, 0u);
  EXPECT_EQ(c.stats().evictions, 1u);
  EXPECT_EQ(c.stats().bytes, 0u);
  EXPECT_EQ(KvSnapshot::wiped_total(), wiped + 1);
  EXPECT_FALSE(c.lookup(s, owner_, p).snapshot);
}

TEST_F(PromptCacheTest, EntriesOfAnUnloadedModelAreDropped) {
  PromptCache c(opts(4));
  const CacheDigest s = c.scope("a", "e", "m", "k"), id = c.identity_tag("a");
  ASSERT_TRUE(c.store(s, id, owner_, snap(prompt(20, 5))));
  owner_.reset();
  c.expire_now();
  EXPECT_EQ(c.stats().resident, 0u);
}

TEST_F(PromptCacheTest, ByteBudgetRefusesWhatDoesNotFitWithoutEvictingOthers) {
  const auto one = snap(prompt(20, 5));
  PromptCacheOptions o = opts(4);
  o.max_bytes = one->bytes() * 2;
  PromptCache c(o);
  ASSERT_TRUE(c.store(c.scope("b", "e", "m", "1"), c.identity_tag("b"), owner_, one));
  ASSERT_TRUE(c.store(c.scope("b", "e", "m", "2"), c.identity_tag("b"), owner_, snap(prompt(20, 6))));
  EXPECT_FALSE(c.store(c.scope("a", "e", "m", "1"), c.identity_tag("a"), owner_, snap(prompt(20, 7))));
  EXPECT_EQ(c.stats().resident, 2u);
  EXPECT_EQ(c.stats().evictions, 0u);
  // b may make room from its own entries.
  EXPECT_TRUE(c.store(c.scope("b", "e", "m", "3"), c.identity_tag("b"), owner_, snap(prompt(20, 8))));
  EXPECT_EQ(c.stats().resident, 2u);
}

TEST(PromptCacheOptionsTest, MaxEntriesOutOfRangeIsRefused) {
  PromptCacheOptions o;
  o.sweeper = false;
  o.max_entries = 0;
  EXPECT_THROW(PromptCache{o}, Error);
  o.max_entries = 1025;
  EXPECT_THROW(PromptCache{o}, Error);
}

}  // namespace prompt_cache_test
}  // namespace a3s::power::runtime
