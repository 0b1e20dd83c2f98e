#include "engine/embedding.h"

#include <cmath>

#include "a3s/power/error.h"
#include "engine/model_impl.h"

namespace a3s::power {
namespace {

enum class Pooling { kMean, kCls, kLast, kRank };

Pooling pooling_of(const Model& model) {
  const auto* impl = dynamic_cast<const engine::ModelImpl*>(&model);
  if (impl == nullptr) throw Error(codes::kInvalidArgument, "model was not loaded by this engine");
  switch (impl->hparams().pooling_type) {
    case 2: return Pooling::kCls;
    case 3: return Pooling::kLast;
    case 4: return Pooling::kRank;
    default: return Pooling::kMean;  // 0 (none / absent) and 1
  }
}

}  // namespace

std::string embedding_pooling(const Model& model) {
  switch (pooling_of(model)) {
    case Pooling::kCls: return "cls";
    case Pooling::kLast: return "last";
    case Pooling::kRank: return "rank";
    case Pooling::kMean: break;
  }
  return "mean";
}

std::vector<float> embed(Context& ctx, std::span<const Token> tokens) {
  const Pooling pooling = pooling_of(ctx.model());
  if (pooling == Pooling::kRank) throw Error(codes::kInvalidArgument, "a reranking model gives no embeddings");
  if (tokens.empty()) throw Error(codes::kInvalidArgument, "an embedding needs at least one token");
  ctx.reset();
  const std::span<const float> states = ctx.eval_hidden(tokens);
  const size_t n_embd = static_cast<size_t>(ctx.model().info().n_embd);
  const size_t n = tokens.size();
  std::vector<double> sum(n_embd, 0.0);
  if (pooling == Pooling::kMean) {
    for (size_t t = 0; t < n; ++t)
      for (size_t i = 0; i < n_embd; ++i) sum[i] += states[t * n_embd + i];
    for (double& v : sum) v /= static_cast<double>(n);
  } else {
    const size_t t = pooling == Pooling::kCls ? 0 : n - 1;
    for (size_t i = 0; i < n_embd; ++i) sum[i] = states[t * n_embd + i];
  }
  double norm = 0.0;
  for (double v : sum) norm += v * v;
  norm = std::sqrt(norm);
  std::vector<float> out(n_embd);
  for (size_t i = 0; i < n_embd; ++i) out[i] = static_cast<float>(norm > 0.0 ? sum[i] / norm : 0.0);
  return out;
}

}  // namespace a3s::power
