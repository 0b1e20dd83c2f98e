#include "runtime/embeddings.h"

#include "chat/field_error.h"
#include "privacy/wipe_text.h"

namespace a3s::power::runtime {

EmbeddingRequest::~EmbeddingRequest() {
  for (auto& t : texts) privacy::wipe_string(t);
  for (auto& ids : token_ids) privacy::wipe_vector(ids);
}

EmbeddingResult::~EmbeddingResult() {
  for (auto& v : vectors) privacy::wipe_vector(v);
}

std::vector<Token> ModelRuntime::embedding_tokens(const std::string&) const {
  throw Error(codes::kUnsupportedModelFeature, "this model gives no embeddings");
}
std::vector<float> ModelRuntime::embed(RuntimeContext&, std::span<const Token>) const {
  throw Error(codes::kUnsupportedModelFeature, "this model gives no embeddings");
}

EmbeddingResult run_embeddings(Slot& slot, const std::shared_ptr<const ModelRuntime>& model,
                               const EmbeddingRequest& request, const std::atomic<bool>& cancel) {
  RuntimeContext& ctx = slot.context_for(model);
  std::vector<Token> tokens;
  struct RequestEnd {
    RuntimeContext& ctx;
    std::vector<Token>& tokens;
    ~RequestEnd() {
      privacy::wipe_vector(tokens);
      ctx.wipe();
    }
  } request_end{ctx, tokens};

  const int n_vocab = model->description().n_vocab;
  const int n_embd = model->description().n_embd;
  if (request.dimensions && *request.dimensions != n_embd) {
    throw chat::FieldError(codes::kInvalidRequest, "dimensions",
                           "'dimensions' must equal the model's embedding width of " + std::to_string(n_embd) +
                               " (embeddings are not shortened)");
  }
  const int n_ctx = ctx.n_ctx();
  const size_t n_inputs = request.texts.empty() ? request.token_ids.size() : request.texts.size();
  EmbeddingResult out;
  out.vectors.reserve(n_inputs);
  for (size_t i = 0; i < n_inputs; ++i) {
    if (cancel.load()) throw Error(codes::kCancelled, "the request was cancelled");
    privacy::wipe_vector(tokens);
    if (request.texts.empty()) {
      tokens = request.token_ids[i];
      for (Token t : tokens) {
        if (t < 0 || t >= n_vocab) {
          throw chat::FieldError(codes::kInvalidRequest, "input",
                                 "'input' holds a token id that is not in the model's vocabulary of " +
                                     std::to_string(n_vocab) + " tokens");
        }
      }
    } else {
      tokens = model->embedding_tokens(request.texts[i]);
    }
    if (tokens.empty()) throw chat::FieldError(codes::kInvalidRequest, "input", "'input' must not be empty");
    if (static_cast<int>(tokens.size()) > n_ctx) {
      throw Error(codes::kContextLengthExceeded,
                  "an input does not fit the model's context of " + std::to_string(n_ctx) + " tokens");
    }
    const int n = static_cast<int>(tokens.size());
    const auto now = std::chrono::steady_clock::now();
    if (!model->reserve_kv(ctx, n, now + request.kv_wait, &cancel)) {
      if (cancel.load()) throw Error(codes::kCancelled, "the request was cancelled");
      throw Error(codes::kQueueTimeout, "no KV cache blocks were free within the queue timeout");
    }
    out.vectors.push_back(model->embed(ctx, tokens));
    out.prompt_tokens += n;
    ctx.wipe();
  }
  return out;
}

}  // namespace a3s::power::runtime
