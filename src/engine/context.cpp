// Context: one sequence's KV cache and its token history. eval() splits the tokens into prefill
// chunks of n_batch and runs each through the model's step batcher (step_batcher.h), which batches
// them with the other contexts' work; the forward pass buffers belong to the model.
#include <algorithm>
#include <cstring>
#include <atomic>
#include <new>
#include <string>

#include "a3s/power/error.h"
#include "base/process_memory.h"
#include "crypto/secure_memory.h"
#include "engine/step_batcher.h"
#include "engine/kv_cache.h"
#include "engine/context_inspect.h"
#include "engine/model_impl.h"

namespace a3s::power {

struct Context::Impl {
  std::shared_ptr<const engine::ModelImpl> model;
  int n_ctx;
  engine::KvCache kv;
  std::vector<Token> tokens;  // what the cache holds, positions 0 … n_past-1
  std::vector<float> logits;
  std::vector<float> hidden;  // eval_hidden(): [tokens, n_embd]

  Impl(std::shared_ptr<const engine::ModelImpl> m, int ctx)
      : model(std::move(m)),
        n_ctx(ctx),
        kv(model->kv_pool(), ctx) {
    tokens.reserve(static_cast<size_t>(ctx));
    logits.resize(static_cast<size_t>(model->hparams().n_vocab));
  }
  ~Impl() { model->batcher().leave(this); }
};

namespace {

std::shared_ptr<const engine::ModelImpl> as_impl(std::shared_ptr<const Model> model) {
  if (!model) throw Error(codes::kInvalidArgument, "context needs a model");
  auto impl = std::dynamic_pointer_cast<const engine::ModelImpl>(model);
  if (!impl) throw Error(codes::kInvalidArgument, "model was not loaded by this engine");
  return impl;
}

int context_size(const engine::ModelImpl& m, const ContextOptions& opts) {
  if (opts.n_ctx < 0) throw Error(codes::kInvalidArgument, "n_ctx must not be negative");
  const int limit = m.info().n_ctx_max;  // 0: no memory budget
  const int64_t pool_blocks = m.kv_pool().stats().blocks_total;  // 0: no limit
  const int pool_limit = static_cast<int>(std::min<int64_t>(pool_blocks * engine::kKvBlockTokens, 1 << 30));
  if (opts.n_ctx > 0) {
    if (limit > 0 && opts.n_ctx > limit)
      throw Error(codes::kInvalidArgument, "a context of " + std::to_string(opts.n_ctx) +
                                               " tokens does not fit the memory budget (at most " +
                                               std::to_string(limit) + ")");
    if (pool_limit > 0 && opts.n_ctx > pool_limit)
      throw Error(codes::kInvalidArgument, "a context of " + std::to_string(opts.n_ctx) +
                                               " tokens does not fit the KV cache (at most " +
                                               std::to_string(pool_limit) + ")");
    // The KV cache grows with use, so without a budget a context the machine can never hold would
    // otherwise be accepted and fail (or swap) only when it fills.
    const engine::HParams& hp = m.hparams();
    const uint64_t kv_bytes = static_cast<uint64_t>(hp.n_layer) * static_cast<uint64_t>(hp.n_embd_kv()) * 2 *
                              sizeof(uint16_t) * static_cast<uint64_t>(opts.n_ctx);
    const uint64_t ram = physical_memory_bytes();
    if (ram > 0 && kv_bytes > ram)
      throw Error(codes::kInvalidArgument, "a context of " + std::to_string(opts.n_ctx) + " tokens needs " +
                                               std::to_string(kv_bytes >> 20) + " MiB of KV cache, more than this " +
                                               "machine's memory (" + std::to_string(ram >> 20) +
                                               " MiB); use a smaller context size");
    return opts.n_ctx;
  }
  const int train = m.hparams().n_ctx_train;
  const int dflt = train > 0 ? std::min(train, 4096) : 4096;
  int n = limit > 0 ? std::min(dflt, limit) : dflt;
  return pool_limit > 0 ? std::min(n, pool_limit) : n;
}

}  // namespace

Context::Context(std::shared_ptr<const Model> model, const ContextOptions& opts) {
  auto m = as_impl(std::move(model));
  const int n_ctx = context_size(*m, opts);
  try {
    impl_ = std::make_unique<Impl>(std::move(m), n_ctx);
  } catch (const std::bad_alloc&) {
    throw Error(codes::kInvalidArgument, "not enough memory for a context of " + std::to_string(n_ctx) +
                                             " tokens (KV cache and buffers); use a smaller context size");
  }
}

Context::~Context() = default;

int Context::n_ctx() const {
  return impl_->n_ctx;
}
int Context::n_past() const {
  return static_cast<int>(impl_->tokens.size());
}
const Model& Context::model() const {
  return *impl_->model;
}
std::span<const Token> Context::tokens() const {
  return impl_->tokens;
}

void Context::reset() {
  impl_->model->batcher().leave(impl_.get());
  impl_->tokens.clear();
  impl_->kv.release();
}

void Context::wipe() {
  Impl& c = *impl_;
  c.model->batcher().leave(impl_.get());
  crypto::wipe_allocation(c.tokens);
  c.tokens.clear();
  c.kv.release();  // each block is wiped as its last holder lets go of it
  crypto::wipe_allocation(c.logits);
  crypto::wipe_allocation(c.hidden);
  c.model->batcher().wipe();  // the shared forward buffers hold activations of this sequence too
}

const engine::KvCache& engine::kv_cache_of(const Context& ctx) { return ctx.impl_->kv; }

// ---- snapshots of a prefix ----

namespace {
std::atomic<uint64_t> g_snapshots_wiped{0};
}  // namespace

struct KvSnapshot::Impl {
  const engine::ModelImpl* model;  // identity only: restore() checks it, never dereferences it
  int n;
  std::vector<Token> tokens;
  std::vector<engine::KvBlockPool::Block> blocks;  // positions [0, n): full blocks shared, the last one copied
  size_t block_bytes = 0;
};

const std::vector<engine::KvBlockPool::Block>& engine::snapshot_blocks(const KvSnapshot& s) { return s.impl().blocks; }

KvSnapshot::KvSnapshot(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KvSnapshot::~KvSnapshot() {
  // Each block is wiped as its last holder lets go of it; the token copy is wiped here.
  crypto::wipe_allocation(impl_->tokens);
  impl_->blocks.clear();
  g_snapshots_wiped.fetch_add(1, std::memory_order_relaxed);
}

int KvSnapshot::n_tokens() const { return impl_->n; }
std::span<const Token> KvSnapshot::tokens() const { return impl_->tokens; }
size_t KvSnapshot::bytes() const { return impl_->blocks.size() * impl_->block_bytes; }
uint64_t KvSnapshot::wiped_total() { return g_snapshots_wiped.load(std::memory_order_relaxed); }

std::shared_ptr<const KvSnapshot> Context::snapshot(int n) const {
  Impl& c = *impl_;
  if (n < 1 || n > n_past()) throw Error(codes::kInvalidArgument, "snapshot beyond the cached tokens");
  constexpr int B = engine::kKvBlockTokens;
  engine::KvBlockPool& pool = c.kv.pool();
  auto s = std::make_unique<KvSnapshot::Impl>();
  s->model = c.model.get();
  s->n = n;
  s->block_bytes = pool.block_bytes();
  const auto& held = c.kv.blocks();
  const int full = n / B, tail = n % B;
  try {
    s->tokens.assign(c.tokens.begin(), c.tokens.begin() + n);
    s->blocks.assign(held.begin(), held.begin() + full);
    if (tail > 0) {
      // The partial block is copied, its positions from n on zeroed: they hold the completion.
      engine::KvBlockPool::Block last = c.kv.allocate_spare();
      std::memcpy(last->data(), held[static_cast<size_t>(full)]->data(), pool.block_bytes());
      const size_t e = static_cast<size_t>(c.kv.n_embd_kv());
      for (int il = 0; il < c.kv.n_layer(); ++il) {
        uint16_t* k = last->data() + static_cast<size_t>(il) * 2 * B * e;
        std::memset(k + static_cast<size_t>(tail) * e, 0, (B - tail) * e * sizeof(uint16_t));
        uint16_t* vt = k + static_cast<size_t>(B) * e;
        for (size_t d = 0; d < e; ++d) std::memset(vt + d * B + tail, 0, (B - tail) * sizeof(uint16_t));
      }
      s->blocks.push_back(std::move(last));
    }
  } catch (const std::bad_alloc&) {
    crypto::wipe_allocation(s->tokens);
    throw Error(codes::kInvalidArgument, "not enough memory for a snapshot of " + std::to_string(n) + " tokens");
  } catch (...) {
    crypto::wipe_allocation(s->tokens);
    throw;
  }
  return std::shared_ptr<const KvSnapshot>(new KvSnapshot(std::move(s)));
}

void Context::restore(const KvSnapshot& snap, int n) {
  reset();
  Impl& c = *impl_;
  const KvSnapshot::Impl& s = snap.impl();
  if (s.model != c.model.get()) throw Error(codes::kInvalidArgument, "the snapshot is of another model");
  if (n < 1 || n > s.n || n >= c.n_ctx) throw Error(codes::kInvalidArgument, "restore beyond the snapshot");
  const size_t n_blocks = static_cast<size_t>((n + engine::kKvBlockTokens - 1) / engine::kKvBlockTokens);
  c.kv.share({s.blocks.begin(), s.blocks.begin() + static_cast<std::ptrdiff_t>(n_blocks)});
  c.tokens.assign(s.tokens.begin(), s.tokens.begin() + n);
}

bool Context::reserve(int n_tokens, std::chrono::steady_clock::time_point deadline, const std::atomic<bool>* cancel) {
  Impl& c = *impl_;
  if (n_tokens < 0 || n_tokens > c.n_ctx)
    throw Error(codes::kInvalidArgument, "a reservation of " + std::to_string(n_tokens) + " tokens exceeds n_ctx " +
                                             std::to_string(c.n_ctx));
  const int64_t need = c.kv.blocks_needed(n_past(), n_tokens) - c.kv.reservation();
  return need <= 0 || c.kv.reserve(need, deadline, cancel);
}

std::unique_ptr<Context> Context::fork() const {
  const Impl& c = *impl_;
  auto child = std::make_unique<Context>(c.model, ContextOptions{.n_ctx = c.n_ctx});
  child->impl_->kv.share(c.kv.blocks());
  child->impl_->tokens = c.tokens;
  return child;
}

engine::StepBatcher& engine::batcher_of(const Model& model) {
  const auto* impl = dynamic_cast<const engine::ModelImpl*>(&model);
  if (!impl) throw Error(codes::kInvalidArgument, "model was not loaded by this engine");
  return impl->batcher();
}

void Context::truncate(int n) {
  if (n < 0 || n > n_past()) throw Error(codes::kInvalidArgument, "truncate beyond the cached tokens");
  impl_->tokens.resize(static_cast<size_t>(n));
  impl_->kv.drop_from((n + engine::kKvBlockTokens - 1) / engine::kKvBlockTokens);
}

namespace {

// What one evaluation returns: the last token's logits, every token's logits, or every token's final
// hidden state (no logits).
enum class EvalOutput { kLastLogits, kAllLogits, kHidden };

// eval() and eval_hidden() (see engine.h for the contract).
std::span<const float> evaluate(Context::Impl& c, std::span<const Token> tokens, EvalOutput what) {
  const int n_vocab = c.model->hparams().n_vocab;
  const size_t n_embd = static_cast<size_t>(c.model->hparams().n_embd);
  if (tokens.empty()) throw Error(codes::kInvalidArgument, "eval needs at least one token");
  for (Token t : tokens)
    if (t < 0 || t >= n_vocab)
      throw Error(codes::kInvalidArgument,
                  "token id " + std::to_string(t) + " outside [0, " + std::to_string(n_vocab) + ")");
  const int n_past0 = static_cast<int>(c.tokens.size());
  if (tokens.size() > static_cast<size_t>(c.n_ctx - n_past0))
    throw Error(codes::kContextLengthExceeded, "context length exceeded: " + std::to_string(n_past0) + " + " +
                                                   std::to_string(tokens.size()) + " tokens > n_ctx " +
                                                   std::to_string(c.n_ctx));
  const size_t n = tokens.size();
  const bool all_logits = what == EvalOutput::kAllLogits;
  const size_t rows = all_logits ? n : 1;
  if (what == EvalOutput::kHidden) {
    if (c.hidden.size() < n * n_embd) {
      crypto::wipe_allocation(c.hidden);
      c.hidden.assign(n * n_embd, 0.0f);
    }
  } else if (c.logits.size() < rows * static_cast<size_t>(n_vocab)) {
    c.logits.resize(rows * static_cast<size_t>(n_vocab));
  }

  try {
    c.kv.prepare(n_past0, n_past0 + static_cast<int>(n));
  } catch (const std::bad_alloc&) {
    throw Error(codes::kInvalidArgument, "not enough memory to grow the KV cache to " +
                                             std::to_string(n_past0 + n) + " tokens; use a smaller context");
  }
  engine::StepBatcher& batcher = c.model->batcher();
  try {
    const size_t nb = static_cast<size_t>(batcher.n_batch());
    for (size_t i = 0; i < n; i += nb) {
      const size_t len = std::min(nb, n - i);
      const bool last = i + len == n;
      engine::Forward::Segment seg{&c.kv, tokens.subspan(i, len), n_past0 + static_cast<int>(i), 0, nullptr};
      if (what == EvalOutput::kHidden) {
        seg.hidden = c.hidden.data() + i * n_embd;
      } else {
        seg.n_out = all_logits ? static_cast<int>(len) : (last ? 1 : 0);
        seg.logits = c.logits.data() + (all_logits ? i * static_cast<size_t>(n_vocab) : 0);
      }
      batcher.run(seg, &c);
      c.tokens.insert(c.tokens.end(), tokens.begin() + static_cast<std::ptrdiff_t>(i),
                      tokens.begin() + static_cast<std::ptrdiff_t>(i + len));
    }
  } catch (...) {
    c.tokens.resize(static_cast<size_t>(n_past0));  // the failed tokens are not part of the sequence
    throw;
  }
  if (what == EvalOutput::kHidden) return {c.hidden.data(), n * n_embd};
  return {c.logits.data(), rows * static_cast<size_t>(n_vocab)};
}

}  // namespace

std::span<const float> Context::eval(std::span<const Token> tokens, bool all_logits) {
  return evaluate(*impl_, tokens, all_logits ? EvalOutput::kAllLogits : EvalOutput::kLastLogits);
}

std::span<const float> Context::eval_hidden(std::span<const Token> tokens) {
  return evaluate(*impl_, tokens, EvalOutput::kHidden);
}

}  // namespace a3s::power
