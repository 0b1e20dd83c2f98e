// A loaded model as the serving layer sees it: prompt preparation (chat template + tokenizer),
// per-slot sequence state (KV cache) and the generation loop.
//
// The scheduler and the HTTP layer only talk to this interface; `engine_runtime.h` implements it on
// the A3S engine, tests implement it with fakes. Implementations are thread-safe for concurrent
// calls on different RuntimeContexts.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "chat/messages.h"
#include "chat/reasoning.h"
#include "chat/tool_calls.h"
#include "runtime/prompt_builder.h"
#include "engine/generator.h"

namespace a3s::power::runtime {

// Static facts about a loaded model (reported by /health and /v1/models).
struct ModelDescription {
  std::string name;          // served name
  std::string path;          // GGUF file
  std::string architecture;  // "llama", "qwen2", …
  std::string file_type;     // dominant weight type, e.g. "Q4_K"
  uint64_t file_size = 0;    // bytes
  uint64_t n_params = 0;
  int n_ctx = 0;             // context of one request (tokens): the KV cache of one slot
  int n_ctx_train = 0;       // context length the model was trained with (tokens)
  int n_vocab = 0;
  int n_embd = 0;            // width of the hidden state (and of an embedding)
  std::string weights = "resident";  // weight residency in use: resident | stream
  uint64_t memory_budget = 0;        // bytes (0 = none); caps n_ctx
  std::string chat_template;       // recognised template family ("plain" when the model has none)
  std::string system_fingerprint;  // stable per model file + server version
  // Integrity (docs/model-integrity.md), for /health and attestation claims:
  std::string sha256;            // hex of the plaintext GGUF bytes ("" when not measured)
  std::string encrypted_sha256;  // hex of the encrypted file (encrypted models only, else "")
  std::string signature = "absent";  // "verified" | "absent"
  std::string instance_id;  // 32 random hex digits drawn at load: names this load (prompt-cache scope)
};

// One sequence's state (its KV cache) for one model. Owned by a scheduler slot and reused across
// requests; the runtime resets it before each generation. One user at a time.
class RuntimeContext {
 public:
  virtual ~RuntimeContext() = default;
  virtual int n_ctx() const = 0;
  // Zeroes everything the last request left in this state (KV cache, token history, activations)
  // with a wipe the compiler cannot elide. run_completion() calls it when each request ends.
  virtual void wipe() = 0;
};

class ModelRuntime {
 public:
  virtual ~ModelRuntime() = default;

  virtual const ModelDescription& description() const = 0;

  // Chat messages (chat/messages.h) → prompt tokens: renders the model's chat
  // template with a generation prompt, and adds BOS only when the model wants one and the rendered
  // text does not already start with the BOS text. Special-token text in the template is parsed.
  // Throws Error(codes::kInvalidRequest) when the template rejects the conversation and
  // Error(codes::kUnsupportedChatTemplate) when the model's template is not supported.
  // options: chat_template_kwargs, reasoning_effort and tools (runtime/prompt_builder.h; see
  // chat::RenderOptions for what takes them and the errors).
  virtual std::vector<Token> chat_prompt(const chat::Messages& messages, const ChatPromptOptions& options) const = 0;

  // The syntax the chat template writes tool calls in (chat/tool_calls.h); kNone (the default) when
  // the server cannot read tool calls back from this model's replies.
  virtual chat::ToolCallSyntax tool_call_syntax() const { return chat::ToolCallSyntax::kNone; }

  // Where the model's reply to a chat prompt (from chat_prompt) starts, for reasoning models
  // (chat/reasoning.h): kNone when the chat template has no "<think>…</think>" markup, kInside when
  // the prompt ends in an open "<think>", else kOutside. The default says kNone.
  virtual chat::ReasoningStart reasoning_start(std::span<const Token> prompt) const;

  // Plain text → prompt tokens, BOS added when the model wants one; special-token text is NOT
  // parsed (user text cannot inject control tokens).
  virtual std::vector<Token> text_prompt(const std::string& text) const = 0;

  // Text → the tokens its embedding is computed from: BOS and EOS as the model's flags say (as
  // llama.cpp's llama-embedding tokenizes), special-token text NOT parsed. The default (a runtime
  // without embeddings) throws Error(codes::kUnsupportedModelFeature).
  virtual std::vector<Token> embedding_tokens(const std::string& text) const;
  // The embedding of `tokens` (engine/embedding.h: pooled final hidden states, unit L2 norm),
  // evaluated on `ctx` from position 0 after reserve_kv(); ctx holds the tokens afterwards. The
  // default throws Error(codes::kUnsupportedModelFeature).
  virtual std::vector<float> embed(RuntimeContext& ctx, std::span<const Token> tokens) const;

  // A fill-in-the-middle prompt (the API's `suffix`): [BOS as the model wants] <fim_pre> prefix
  // <fim_suf> suffix <fim_mid>, the texts tokenized without special-token parsing (llama.cpp's
  // infill order). Throws chat::FieldError(codes::kUnsupportedField, "suffix") for a model without
  // the three FIM tokens; the default (a runtime without FIM) does the same.
  virtual std::vector<Token> infill_prompt(const std::string& prefix, const std::string& suffix) const;

  // A fresh sequence state with description().n_ctx tokens of KV cache.
  virtual std::unique_ptr<RuntimeContext> new_context() const = 0;

  // Runs one generation on `ctx`, which holds nothing or a prefix of req.prompt loaded by
  // restore_prefix() (only the rest is evaluated; see engine/generator.h for the stop rules).
  // Throws Error(codes::kContextLengthExceeded) when the prompt does not fit.
  virtual GenerationResult generate(RuntimeContext& ctx, const GenerationRequest& req,
                                    const DeltaCallback& on_delta) const = 0;

  // The prompt-prefix cache (runtime/prompt_cache.h): whether this runtime can snapshot and restore
  // a prefix of a context. The defaults say no and throw Error(codes::kPromptCacheUnsupported).
  virtual bool supports_prefix_snapshots() const { return false; }
  // A snapshot of ctx's first n tokens (after a generation: a prefix of its prompt).
  virtual std::shared_ptr<const KvSnapshot> snapshot_prefix(RuntimeContext& ctx, int n) const;
  // Loads the first n tokens of `snap` into ctx (which forgets what it held).
  virtual void restore_prefix(RuntimeContext& ctx, const KvSnapshot& snap, int n) const;

  // The paged KV cache (Context::reserve): reserves the blocks ctx needs to hold n_tokens positions,
  // waiting for other requests to free blocks until `deadline` or *cancel; false when it could not.
  // The default (a runtime without a block pool) grants at once.
  virtual bool reserve_kv(RuntimeContext& ctx, int n_tokens, std::chrono::steady_clock::time_point deadline,
                          const std::atomic<bool>* cancel) const;
  // The model's KV block pool counters (all zero without a pool).
  virtual KvCacheStats kv_cache_stats() const { return {}; }
};

}  // namespace a3s::power::runtime
