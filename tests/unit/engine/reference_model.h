// A deliberately naive transformer used as a test oracle: every weight dequantized to float at load,
// plain loops with double accumulators, no fp16 rounding anywhere, RoPE angles from pow() directly.
// It shares no code with the engine's forward pass (only the GGUF reader and row dequantization).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace a3s::power::testing {

class ReferenceModel {
 public:
  explicit ReferenceModel(const std::string& path);

  int n_vocab() const { return n_vocab_; }
  // Logits after each token of `tokens` (positions 0 …): [tokens.size()][n_vocab].
  std::vector<std::vector<float>> forward(const std::vector<int>& tokens) const;

 private:
  const std::vector<float>& w(const std::string& name) const;
  bool has(const std::string& name) const { return weights_.count(name) != 0; }
  // y[r] = Σ_c W[r][c] x[c] for W stored as rows of n_cols.
  static std::vector<double> matvec(const std::vector<float>& W, const std::vector<double>& x, int n_rows);

  std::string arch_;
  int n_vocab_ = 0, n_embd_ = 0, n_layer_ = 0, n_head_ = 0, n_head_kv_ = 0, n_ff_ = 0, n_rot_ = 0;
  int n_expert_ = 0, n_expert_used_ = 0;  // mixture of experts (llama files with Mixtral-layout experts)
  double eps_ = 1e-5, base_ = 10000.0;
  bool neox_ = false;
  std::map<std::string, std::vector<float>> weights_;
};

}  // namespace a3s::power::testing
