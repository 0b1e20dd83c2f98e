// A3S Power engine: the public API an embedder (and our server) uses.
//
//   auto model = a3s::power::Model::load("model.gguf", {});
//   a3s::power::Context ctx(model, {.n_ctx = 2048});
//   auto tokens = model->tokenizer().encode("Once upon a time", /*add_special=*/true, false);
//   std::span<const float> logits = ctx.eval(tokens);   // n_vocab floats for the last token
//
// Threading: a Model owns one persistent ThreadPool and one forward pass. Context::eval calls on
// contexts of the same model from several threads (one per request slot) are safe and are batched:
// the tokens that are waiting run together as one forward pass (continuous batching, one read of
// the weights per step), and each sequence's logits are bitwise the same as when it runs alone.
// Errors: a3s::power::Error (see error.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/settings.h"

namespace a3s::power {

using Token = int32_t;

class Tokenizer;  // src/tokenizer/tokenizer.h
namespace gguf { class File; }
namespace weights { class ByteReader; }  // src/model/sources/byte_reader.h
class Context;
class KvSnapshot;
namespace engine {
class KvCache;
const KvCache& kv_cache_of(const Context& ctx);  // internal: src/engine/context_inspect.h
}  // namespace engine

// WeightsMode (where weights live: resident / stream / auto) is in a3s/power/settings.h.
// "256M", "1.5G", "300000000" (bytes; K/M/G/T suffixes are binary: M = 2^20), nullopt when malformed
// or zero.
std::optional<uint64_t> parse_memory_size(std::string_view s);

struct ModelOptions {
  int n_threads = 0;   // worker threads incl. caller; 0 → physical cores
  int n_batch = 512;   // max tokens per prefill batch (stream mode may use fewer to fit the budget)
  WeightsMode weights = WeightsMode::Auto;
  // Memory the loaded model may use (weights in memory, KV cache, buffers, process baseline), in
  // bytes; 0 = no budget. With a budget the context size is capped to what fits (ModelInfo::n_ctx_max).
  uint64_t memory_budget = 0;
  // Bytes of the model's KV block pool (shared by all its contexts and prompt-cache snapshots);
  // 0 → the budget's context (n_ctx_max positions) when there is a memory budget, else no limit
  // but the machine's memory. Error(codes::kInvalidArgument) when it holds less than one block.
  uint64_t kv_cache_bytes = 0;
};

// The KV block pool of a model (paged KV cache: blocks of 32 positions of every layer).
struct KvCacheStats {
  int64_t blocks_total = 0;     // capacity (0 = no limit but the machine's memory)
  int64_t blocks_in_use = 0;    // held by contexts and snapshots
  int64_t blocks_reserved = 0;  // promised to contexts (Context::reserve), not yet allocated
  int64_t waiting = 0;          // Context::reserve calls waiting for blocks
  uint64_t block_bytes = 0;     // bytes of one block
  uint64_t blocks_wiped = 0;    // blocks wiped and freed since load
};

// How an encrypted model was decrypted (docs/encrypted-weights.md). Digests are lowercase hex.
struct EncryptionInfo {
  std::string decrypt_mode;       // "file" (sealed memfd) | "memory" (locked anonymous memory)
  std::string plaintext_sha256;   // from the header, verified against the decrypted bytes at load
  std::string ciphertext_sha256;  // of the encrypted file as it was read
  std::string key_id;             // 16-byte key id of the model key
  uint64_t encrypted_size = 0;    // bytes of the encrypted file
  bool memory_locked = false;     // "memory" mode: every page locked in RAM (RLIMIT_MEMLOCK allowing)
};

// What is known about the model's plaintext bytes (docs/model-integrity.md), from load_model() with
// integrity options or an encrypted model. Digests are lowercase hex.
struct IntegrityInfo {
  std::string sha256;               // SHA-256 of the plaintext GGUF bytes the engine serves
  bool signature_verified = false;  // `<path>.sig` verified with the configured signing key
  // A plaintext file read into memory to be measured (not an encrypted model): its weights must stay
  // resident, a streamed read would go back to the file (stream / auto choosing stream → Error
  // "invalid_argument").
  bool plaintext_image = false;
  std::string subject;  // how messages name the model, e.g. "model 'x'"
};

struct ModelInfo {
  std::string path;
  std::string name;          // general.name, else file stem
  std::string architecture;  // "llama", "qwen2", "qwen3"
  std::string file_type;     // dominant weight type, e.g. "Q4_K", "F32"
  uint64_t file_size = 0;    // bytes
  // Bytes of weights one decode step (one token) reads: every tensor once, except the token-embedding
  // rows of other tokens (one row is read; all of them when the output head is tied to it) and, in a
  // mixture of experts, the experts a token is not routed to (n_expert_used of n_expert planes).
  uint64_t decode_bytes = 0;
  uint64_t n_params = 0;
  int n_vocab = 0, n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, n_ff = 0;
  int n_ctx_train = 0;       // context length from metadata
  std::optional<std::string> chat_template;  // tokenizer.chat_template, if any
  WeightsMode weights = WeightsMode::Resident;  // the mode in use (never Auto)
  uint64_t memory_budget = 0;  // as given (0 = none)
  int n_ctx_max = 0;           // largest context the budget allows (0 = no budget limit)
  int n_batch = 0;             // prefill batch in use
  std::optional<EncryptionInfo> encryption;  // set when the model file was encrypted
  std::optional<IntegrityInfo> integrity;    // set when the plaintext digest is known
};

class Model {
 public:
  // Loads a GGUF model (weights memory-mapped). Throws Error: "io_error", "invalid_model",
  // "unsupported_tensor_type" (names tensor and type), "unsupported_architecture",
  // "unsupported_model_feature" (names a tensor the architecture's graph does not use, or a metadata
  // key that changes the computation and is not implemented, e.g. an unsupported rope scaling type).
  // Encrypted models: load_model() in src/engine/load.h.
  static std::shared_ptr<Model> load(const std::string& path, const ModelOptions& opts = {});
  // Loads a GGUF file that is already open (mapped, or a decrypted image in memory that the File
  // keeps alive). info().path is file->path(); `encryption` becomes info().encryption.
  // `tensor_bytes`: for a header-only file (stream decryption), where the tensor bytes are read
  // (at each tensor's file offset); the weights are then streamed: opts.weights auto or stream
  // (resident → Error "invalid_argument"). `integrity` becomes info().integrity.
  static std::shared_ptr<Model> load(std::shared_ptr<const gguf::File> file, const ModelOptions& opts,
                                     std::optional<EncryptionInfo> encryption = std::nullopt,
                                     std::shared_ptr<weights::ByteReader> tensor_bytes = nullptr,
                                     std::optional<IntegrityInfo> integrity = std::nullopt);
  virtual ~Model() = default;

  virtual const ModelInfo& info() const = 0;
  virtual const Tokenizer& tokenizer() const = 0;
  // Bytes of weights read from storage so far (stream mode; 0 when resident).
  virtual uint64_t weight_bytes_read() const = 0;
  // The KV block pool's counters (thread-safe).
  virtual KvCacheStats kv_cache_stats() const = 0;

 protected:
  Model() = default;
};

struct ContextOptions {
  // Tokens of context; 0 → min(n_ctx_train, 4096, the model's n_ctx_max, the KV pool's positions).
  // The KV cache takes blocks of the model's pool as positions are used. Error(codes::kInvalidArgument)
  // when n_ctx exceeds n_ctx_max or the pool.
  int n_ctx = 0;
};

// One sequence: its KV cache and token history. Not thread-safe itself (one user at a time).
class Context {
 public:
  Context(std::shared_ptr<const Model> model, const ContextOptions& opts = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int n_ctx() const;
  int n_past() const;  // tokens already in the KV cache
  const Model& model() const;

  // Tokens held in the KV cache, positions 0 … n_past()-1 (valid until the next call).
  std::span<const Token> tokens() const;

  // Forgets the sequence: its KV blocks go back to the pool (each wiped by its last holder) and its
  // reservation is given back.
  void reset();

  // Forgets the sequence and zeroes everything derived from it, with a wipe the compiler cannot
  // elide: the KV cache storage, the token history, the logits and the forward-pass activations.
  // Called when a request ends (docs/privacy.md); the context stays usable.
  void wipe();

  // Keeps the first n cached tokens and forgets the rest, so a shared prompt prefix can be reused.
  // Throws Error(codes::kInvalidArgument) unless 0 <= n <= n_past().
  void truncate(int n);

  // Reserves in the model's KV pool the blocks this sequence needs to hold n_tokens positions (the
  // prompt and the completion), beyond what it holds and has reserved already, so eval() up to
  // n_tokens never fails for lack of blocks. Waits for other sequences to free blocks until
  // `deadline` or until *cancel (may be null) is raised: then returns false and reserves nothing.
  // Throws Error(codes::kInvalidArgument) when n_tokens > n_ctx().
  bool reserve(int n_tokens, std::chrono::steady_clock::time_point deadline,
               const std::atomic<bool>* cancel = nullptr);

  // A new context of the same model and size holding the same sequence: it shares this context's
  // KV blocks (no copy) until either writes to a shared block, which then gets its own copy (copy on
  // write). The fork has no reservation of its own. Throws Error(codes::kInvalidArgument) when the
  // context cannot be made.
  std::unique_ptr<Context> fork() const;

  // Evaluates `tokens` at positions n_past() … n_past()+tokens.size()-1 (prefill in batches of
  // n_batch), appends them to the KV cache and returns logits: the last token's row (n_vocab
  // floats), or with all_logits one row per token ([tokens.size(), n_vocab] row-major). The span
  // is valid until the next call. Throws Error(codes::kContextLengthExceeded) when the tokens do not
  // fit, Error(codes::kInvalidArgument) for token ids outside [0, n_vocab) or an empty `tokens`,
  // Error(codes::kResourceExhausted) when the KV pool has no free block (and none was reserved).
  // On any error the sequence is unchanged (n_past() as before).
  std::span<const float> eval(std::span<const Token> tokens, bool all_logits = false);

  // Evaluates `tokens` as eval() does (same positions, KV cache and errors) but computes no logits:
  // returns each token's final hidden state after the output norm, the vectors embeddings are
  // pooled from ([tokens.size(), n_embd] row-major; valid until the next call).
  std::span<const float> eval_hidden(std::span<const Token> tokens);

  // The cached keys and values of positions [0, n) and their tokens (a prompt prefix), for the
  // prompt-prefix cache (docs/prompt-cache.md): the snapshot shares the context's full KV blocks and
  // copies the last, partial one with the positions from n on zeroed (so it holds nothing beyond the
  // prefix). Throws Error(codes::kInvalidArgument) unless 1 <= n <= n_past(), and
  // Error(codes::kResourceExhausted) when the pool has no block for the copy.
  std::shared_ptr<const KvSnapshot> snapshot(int n) const;

  // Forgets the sequence (as reset()) and loads the first n positions of `snap` (1 <= n <=
  // snap.n_tokens(), n < n_ctx()): afterwards n_past() == n and tokens() is snap's first n tokens.
  // Evaluating the rest of a prompt then gives logits bitwise equal to evaluating the whole prompt
  // (the forward pass is batch invariant). Throws Error(codes::kInvalidArgument) when `snap` was
  // taken from a context of another model, or n is out of range; the sequence is then empty.
  void restore(const KvSnapshot& snap, int n);

  struct Impl;

 private:
  friend const engine::KvCache& engine::kv_cache_of(const Context& ctx);
  std::unique_ptr<Impl> impl_;
};

// The K/V rows of a token prefix taken by Context::snapshot(): KV blocks of the model's pool, shared
// with the contexts that hold the same prefix (fp16, excluded from core dumps, covered by the
// process-wide memory lock in tee_mode, and wiped — not elided — by the last holder before it is
// freed); the token copy is wiped when the snapshot is freed. Immutable once taken, so several
// contexts may restore from one snapshot at once; restoring shares its blocks.
class KvSnapshot {
 public:
  ~KvSnapshot();
  KvSnapshot(const KvSnapshot&) = delete;
  KvSnapshot& operator=(const KvSnapshot&) = delete;

  int n_tokens() const;                // positions held
  std::span<const Token> tokens() const;
  size_t bytes() const;                // bytes of the KV blocks it holds (shared ones included)

  // Snapshots freed so far in this process (each was wiped first): a counter for tests and /metrics.
  static uint64_t wiped_total();

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  friend class Context;
  explicit KvSnapshot(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace a3s::power
