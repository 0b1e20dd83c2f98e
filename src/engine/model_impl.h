// The engine's Model: hyper-parameters, the resolved tensor table of the architecture's graph, the
// weight source, the tokenizer, the thread pool, the compute mutex (one forward pass at a time) and
// the step batcher that runs every context's tokens.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include "a3s/power/engine.h"
#include "base/thread_pool.h"
#include "engine/arch.h"
#include "engine/hparams.h"
#include "engine/kv_block_pool.h"
#include "engine/packed_weights.h"
#include "engine/step_batcher.h"
#include "grammar/token_mask.h"
#include "model/sources/weight_source.h"

namespace a3s::power::engine {

// Tensor ids (into the WeightSource) of one block, by LayerRole; -1 when absent.
struct LayerTensors {
  std::array<int, kLayerRoles> id;
  int operator[](LayerRole r) const { return id[static_cast<size_t>(r)]; }
};

class ModelImpl final : public Model {
 public:
  ModelImpl(ModelInfo info, HParams hp, const ArchSpec& arch, std::shared_ptr<const gguf::File> file,
            std::unique_ptr<weights::WeightSource> weights, std::unique_ptr<Tokenizer> tokenizer,
            const ModelOptions& opts, bool pack_weights = false);
  ~ModelImpl() override;

  const ModelInfo& info() const override { return info_; }
  const Tokenizer& tokenizer() const override { return *tokenizer_; }
  uint64_t weight_bytes_read() const override { return weights_->bytes_read(); }
  KvCacheStats kv_cache_stats() const override;

  const HParams& hparams() const { return hp_; }
  const ArchSpec& arch() const { return arch_; }
  const ModelOptions& options() const { return opts_; }
  weights::WeightSource& weights() const { return *weights_; }
  // The packed form of tensor `id` (packed_weights.h), or null.
  const PackedWeights::Tensor* packed(int id) const { return packed_ ? packed_->find(id) : nullptr; }
  ThreadPool& pool() const { return *pool_; }
  std::mutex& compute_mutex() const { return *compute_mu_; }
  // The engine loop every Context of this model runs its tokens through (step_batcher.h).
  StepBatcher& batcher() const { return *batcher_; }
  // The paged KV cache's block pool every Context and snapshot of this model draws from.
  KvBlockPool& kv_pool() const { return *kv_pool_; }

  const LayerTensors& layer(int il) const { return layers_[static_cast<size_t>(il)]; }
  int tok_embd() const { return tok_embd_; }
  int output_norm() const { return output_norm_; }
  int output() const { return output_; }  // token_embd when the head is tied
  // rope_freqs.weight as floats ([n_rot/2] divisors), empty when the model has none.
  const std::vector<float>& rope_freqs() const { return rope_freqs_; }

  // Largest activation row (bytes) any matmul input needs for `n_tokens` tokens.
  size_t max_act_bytes(int n_tokens) const;

  // engine/grammar_vocab.h: built on first use, then kept.
  const grammar::TokenTrie& grammar_vocabulary(bool control_tokens) const;

 private:
  void resolve_tensors();
  void read_rope_freqs(int id);

  ModelInfo info_;
  HParams hp_;
  const ArchSpec& arch_;
  ModelOptions opts_;
  std::shared_ptr<const gguf::File> file_;
  std::unique_ptr<weights::WeightSource> weights_;
  std::unique_ptr<PackedWeights> packed_;  // resident plaintext files only
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<std::mutex> compute_mu_;
  std::vector<LayerTensors> layers_;
  int tok_embd_ = -1, output_norm_ = -1, output_ = -1;
  std::vector<float> rope_freqs_;
  std::unique_ptr<KvBlockPool> kv_pool_;
  mutable std::mutex vocab_mu_;
  mutable std::unique_ptr<grammar::TokenTrie> grammar_vocab_[2];  // [control_tokens]
  std::unique_ptr<StepBatcher> batcher_;  // last: destroyed first (its forward pass reads the rest)
};

}  // namespace a3s::power::engine
