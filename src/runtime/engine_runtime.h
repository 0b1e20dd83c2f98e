// ModelRuntime on the A3S engine: Model::load + Context (KV cache) + generate(), with the model's
// chat template (src/chat) for chat prompts.
#pragma once

#include <memory>
#include <string>

#include "a3s/power/engine.h"
#include "runtime/model_runtime.h"
#include "model/model_file.h"

namespace a3s::power::runtime {

struct EngineRuntimeOptions {
  int n_threads = 0;   // engine worker threads; 0 → physical cores
  int n_batch = 512;   // prefill batch (tokens)
  int n_ctx = 0;       // per-request context (tokens); 0 → min(n_ctx_train, 4096), and with a memory
                       // budget the budget's context divided among the n_parallel slots
  int n_parallel = 1;  // generation slots that each hold a context
  WeightsMode weights = WeightsMode::Auto;
  uint64_t memory_budget = 0;  // bytes; 0 = none
  uint64_t kv_cache_bytes = 0;  // the KV block pool (ModelOptions::kv_cache_bytes); 0 = from the budget
  std::string chat_template_fallback;  // family for unrecognised templates ("" → the Jinja interpreter)
  // A chat template that replaces the GGUF's tokenizer.chat_template (chat_template_file); empty → the
  // GGUF's.
  std::string chat_template;
  weights::DecryptOptions decrypt;     // encrypted model files (plaintext files load as they are)
  // Pin, signing key, or measurement only (model/integrity/integrity.h); model_name is set by the loader.
  weights::IntegrityOptions integrity;
};

// Loads the GGUF file at `path` (plaintext, or encrypted: see engine/load.h) and serves it as
// `name`. Throws the engine's load errors ("io_error", "invalid_model", "unsupported_tensor_type",
// "unsupported_architecture") and the decryption errors ("model_key_error", "model_key_mismatch",
// "decryption_failed", "integrity_error" — also for a pin or signature that does not match, naming
// the model — and "invalid_argument" for a measured plaintext model whose weights would stream).
// An unsupported chat template does not fail the load: chat_prompt() throws it instead, so the
// model still serves /v1/completions.
std::shared_ptr<ModelRuntime> load_engine_runtime(const std::string& name, const std::string& path,
                                                  const EngineRuntimeOptions& opts);

}  // namespace a3s::power::runtime
