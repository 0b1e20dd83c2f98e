// One embeddings request as the serving layer runs it (POST /v1/embeddings): each input becomes
// tokens (text: BOS/EOS as the model's flags say, special-token text not parsed; or token ids as
// given), is evaluated on the slot's context alone, and is pooled into one unit-length vector
// (engine/embedding.h). No HTTP types here.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "a3s/power/engine.h"
#include "runtime/model_runtime.h"
#include "runtime/slot.h"

namespace a3s::power::runtime {

// The inputs are request data: wiped when the object is destroyed.
struct EmbeddingRequest {
  std::string model;                           // served model name
  std::vector<std::string> texts;              // text inputs, or
  std::vector<std::vector<Token>> token_ids;   // token-id inputs (one of the two is empty)
  std::optional<int> dimensions;               // the API's `dimensions`: must equal the model's width
  // Longest wait for KV cache blocks before an input is evaluated: then Error(codes::kQueueTimeout).
  std::chrono::milliseconds kv_wait{30'000};

  EmbeddingRequest() = default;
  EmbeddingRequest(EmbeddingRequest&&) noexcept = default;
  EmbeddingRequest& operator=(EmbeddingRequest&&) noexcept = default;
  ~EmbeddingRequest();
};

// Derived from the inputs: wiped when destroyed.
struct EmbeddingResult {
  std::vector<std::vector<float>> vectors;  // one per input, in order, n_embd floats each
  int prompt_tokens = 0;                    // tokens evaluated, all inputs together

  EmbeddingResult() = default;
  EmbeddingResult(EmbeddingResult&&) noexcept = default;
  EmbeddingResult& operator=(EmbeddingResult&&) noexcept = default;
  ~EmbeddingResult();
};

// Embeds every input on the slot's context for `model`, which is wiped after each input and when the
// call ends, however it ends. Throws Error: chat::FieldError(kInvalidRequest, "input") for an empty
// input or a token id outside the vocabulary (the message names the vocabulary's size, never a
// value); FieldError(kInvalidRequest, "dimensions") when `dimensions` is not the model's width
// (embeddings are not shortened); kContextLengthExceeded for an input of more than n_ctx tokens (naming the context size
// only); kQueueTimeout / kCancelled while waiting for KV blocks; kCancelled when `cancel` is raised
// between inputs; and the model's errors (kUnsupportedModelFeature for a model with no embeddings).
EmbeddingResult run_embeddings(Slot& slot, const std::shared_ptr<const ModelRuntime>& model,
                               const EmbeddingRequest& request, const std::atomic<bool>& cancel);

}  // namespace a3s::power::runtime
