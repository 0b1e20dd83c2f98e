// MappedWeights: tensor index, layer membership, leases, row reads and their bounds.
#include <gtest/gtest.h>

#include "a3s/power/error.h"
#include "model/gguf/gguf_file.h"
#include "support/gguf_builder.h"
#include "model/sources/mapped_weights.h"

namespace a3s::power::weights {
namespace {

TEST(MappedWeights, IndexesTensorsAndLayers) {
  auto file = gguf::File::open(testing::model_path("stories260K"));
  MappedWeights w(file);
  EXPECT_EQ(w.n_layers(), 5);
  auto q = w.find("blk.3.attn_q.weight");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(w.desc(*q).layer, 3);
  EXPECT_EQ(w.desc(*q).ne[0], 64);
  EXPECT_EQ(w.desc(*q).row_bytes, 64u * 4);
  auto embd = w.find("token_embd.weight");
  ASSERT_TRUE(embd.has_value());
  EXPECT_EQ(w.desc(*embd).layer, -1);
  EXPECT_FALSE(w.find("blk.9.attn_q.weight").has_value());
}

TEST(MappedWeights, LeasesAndRowsPointIntoTheFile) {
  auto file = gguf::File::open(testing::model_path("stories260K"));
  MappedWeights w(file);
  const int q = *w.find("blk.3.attn_q.weight");
  {
    LayerLease lease = w.acquire_layer(3);
    EXPECT_EQ(lease.data(q), file->tensor_data(*file->find_tensor("blk.3.attn_q.weight")));
    EXPECT_THROW(lease.data(*w.find("blk.2.attn_q.weight")), Error);  // other layer
  }
  EXPECT_THROW(w.acquire_layer(5), Error);
  const int embd = *w.find("token_embd.weight");
  const uint8_t* base = file->tensor_data(*file->find_tensor("token_embd.weight"));
  EXPECT_EQ(w.read_rows(embd, 10, 2, {}), base + 10 * 64 * 4);
  EXPECT_THROW(w.read_rows(embd, 511, 2, {}), Error);
  EXPECT_THROW(w.read_rows(embd, -1, 1, {}), Error);
  EXPECT_THROW(w.read_rows(q, 0, 1, {}), Error);  // layer tensors go through leases
  EXPECT_THROW(w.desc(100000), Error);
}

}  // namespace
}  // namespace a3s::power::weights
