#include "reference_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "model/gguf/gguf_file.h"
#include "kernels/kernels.h"

namespace a3s::power::testing {

ReferenceModel::ReferenceModel(const std::string& path) {
  auto f = gguf::File::open(path);
  arch_ = f->get_string("general.architecture").value();
  neox_ = arch_ == "qwen2";
  const std::string p = arch_ + ".";
  n_embd_ = static_cast<int>(*f->get_i64(p + "embedding_length"));
  n_layer_ = static_cast<int>(*f->get_i64(p + "block_count"));
  n_head_ = static_cast<int>(*f->get_i64(p + "attention.head_count"));
  n_head_kv_ = static_cast<int>(f->get_i64(p + "attention.head_count_kv").value_or(n_head_));
  n_ff_ = static_cast<int>(*f->get_i64(p + "feed_forward_length"));
  n_rot_ = static_cast<int>(f->get_i64(p + "rope.dimension_count").value_or(n_embd_ / n_head_));
  eps_ = f->get_f64(p + "attention.layer_norm_rms_epsilon").value_or(1e-5);
  base_ = f->get_f64(p + "rope.freq_base").value_or(10000.0);
  n_expert_ = static_cast<int>(f->get_i64(p + "expert_count").value_or(0));
  n_expert_used_ = static_cast<int>(f->get_i64(p + "expert_used_count").value_or(0));
  for (const auto& t : f->tensors()) {
    std::vector<float> v(static_cast<size_t>(t.n_elements()));
    const size_t row_bytes = *row_size(t.type, t.ne[0]);
    for (int64_t r = 0; r < t.n_rows(); ++r)
      kernels::dequantize_row(t.type, f->tensor_data(t) + r * row_bytes, v.data() + r * t.ne[0], t.ne[0]);
    weights_[t.name] = std::move(v);
  }
  n_vocab_ = static_cast<int>(w("token_embd.weight").size() / static_cast<size_t>(n_embd_));
}

const std::vector<float>& ReferenceModel::w(const std::string& name) const {
  auto it = weights_.find(name);
  if (it == weights_.end()) throw std::runtime_error("reference model: missing " + name);
  return it->second;
}

std::vector<double> ReferenceModel::matvec(const std::vector<float>& W, const std::vector<double>& x, int n_rows) {
  const size_t n_cols = x.size();
  std::vector<double> y(static_cast<size_t>(n_rows), 0.0);
  for (size_t r = 0; r < y.size(); ++r) {
    double s = 0.0;
    for (size_t c = 0; c < n_cols; ++c) s += static_cast<double>(W[r * n_cols + c]) * x[c];
    y[r] = s;
  }
  return y;
}

std::vector<std::vector<float>> ReferenceModel::forward(const std::vector<int>& tokens) const {
  const int hd = n_embd_ / n_head_;
  const int n_kv = n_head_kv_ * hd;
  const int group = n_head_ / n_head_kv_;
  auto rmsnorm = [&](const std::vector<double>& x, const std::vector<float>& g) {
    double ss = 0.0;
    for (double v : x) ss += v * v;
    const double s = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + eps_);
    std::vector<double> y(x.size());
    for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * s * g[i];
    return y;
  };
  auto rope = [&](std::vector<double>& v, int n_heads, int pos) {
    for (int h = 0; h < n_heads; ++h) {
      double* x = v.data() + static_cast<size_t>(h) * hd;
      for (int i = 0; i < n_rot_ / 2; ++i) {
        const double theta = pos * std::pow(base_, -2.0 * i / n_rot_);
        const double c = std::cos(theta), s = std::sin(theta);
        const int a = neox_ ? i : 2 * i, b = neox_ ? i + n_rot_ / 2 : 2 * i + 1;
        const double x0 = x[a], x1 = x[b];
        x[a] = x0 * c - x1 * s;
        x[b] = x0 * s + x1 * c;
      }
    }
  };
  auto add_bias = [&](std::vector<double>& v, const std::string& name) {
    if (!has(name)) return;
    const auto& b = w(name);
    for (size_t i = 0; i < v.size(); ++i) v[i] += b[i];
  };

  std::vector<std::vector<std::vector<double>>> K(static_cast<size_t>(n_layer_)), V(static_cast<size_t>(n_layer_));
  std::vector<std::vector<float>> out;
  const auto& embd = w("token_embd.weight");
  const auto& head = has("output.weight") ? w("output.weight") : embd;
  for (size_t pos = 0; pos < tokens.size(); ++pos) {
    std::vector<double> x(embd.begin() + static_cast<long>(tokens[pos]) * n_embd_,
                          embd.begin() + static_cast<long>(tokens[pos] + 1) * n_embd_);
    for (int il = 0; il < n_layer_; ++il) {
      const std::string b = "blk." + std::to_string(il) + ".";
      auto h = rmsnorm(x, w(b + "attn_norm.weight"));
      auto q = matvec(w(b + "attn_q.weight"), h, n_head_ * hd);
      auto k = matvec(w(b + "attn_k.weight"), h, n_kv);
      auto v = matvec(w(b + "attn_v.weight"), h, n_kv);
      add_bias(q, b + "attn_q.bias");
      add_bias(k, b + "attn_k.bias");
      add_bias(v, b + "attn_v.bias");
      rope(q, n_head_, static_cast<int>(pos));
      rope(k, n_head_kv_, static_cast<int>(pos));
      K[il].push_back(k);
      V[il].push_back(v);
      std::vector<double> att(static_cast<size_t>(n_head_) * hd, 0.0);
      for (int hh = 0; hh < n_head_; ++hh) {
        const int g = hh / group;
        std::vector<double> s(pos + 1);
        double mx = -1e300;
        for (size_t j = 0; j <= pos; ++j) {
          double d = 0.0;
          for (int i = 0; i < hd; ++i) d += q[hh * hd + i] * K[il][j][g * hd + i];
          s[j] = d / std::sqrt(static_cast<double>(hd));
          mx = std::max(mx, s[j]);
        }
        double sum = 0.0;
        for (double& e : s) sum += (e = std::exp(e - mx));
        for (size_t j = 0; j <= pos; ++j)
          for (int i = 0; i < hd; ++i) att[hh * hd + i] += s[j] / sum * V[il][j][g * hd + i];
      }
      auto o = matvec(w(b + "attn_output.weight"), att, n_embd_);
      for (int i = 0; i < n_embd_; ++i) x[i] += o[i];
      h = rmsnorm(x, w(b + "ffn_norm.weight"));
      // The SwiGLU FFN whose weights start at row `row0` of each tensor (an expert's plane).
      auto ffn = [&](const std::string& gate_w, const std::string& up_w, const std::string& down_w, size_t e) {
        const size_t ff = static_cast<size_t>(n_ff_), E = static_cast<size_t>(n_embd_);
        auto plane = [&](const std::string& name, size_t rows, size_t cols) {
          const auto& all = w(name);
          return std::vector<float>(all.begin() + static_cast<long>(e * rows * cols),
                                    all.begin() + static_cast<long>((e + 1) * rows * cols));
        };
        auto gate = matvec(plane(gate_w, ff, E), h, n_ff_);
        auto up = matvec(plane(up_w, ff, E), h, n_ff_);
        for (int i = 0; i < n_ff_; ++i) gate[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
        return matvec(plane(down_w, E, ff), gate, n_embd_);
      };
      if (n_expert_ == 0) {
        auto d = ffn(b + "ffn_gate.weight", b + "ffn_up.weight", b + "ffn_down.weight", 0);
        for (int i = 0; i < n_embd_; ++i) x[i] += d[i];
      } else {
        // Mixture of experts (Mixtral): softmax over the router's logits, the n_expert_used most
        // probable experts, their probabilities renormalised to sum to 1.
        auto logit = matvec(w(b + "ffn_gate_inp.weight"), h, n_expert_);
        const double mx = *std::max_element(logit.begin(), logit.end());
        double z = 0.0;
        for (double& l : logit) z += (l = std::exp(l - mx));
        std::vector<int> order(static_cast<size_t>(n_expert_));
        for (int e = 0; e < n_expert_; ++e) order[static_cast<size_t>(e)] = e;
        std::stable_sort(order.begin(), order.end(), [&](int a, int c) { return logit[a] > logit[c]; });
        double used = 0.0;
        for (int j = 0; j < n_expert_used_; ++j) used += logit[order[j]] / z;
        for (int j = 0; j < n_expert_used_; ++j) {
          const int e = order[static_cast<size_t>(j)];
          auto d = ffn(b + "ffn_gate_exps.weight", b + "ffn_up_exps.weight", b + "ffn_down_exps.weight",
                       static_cast<size_t>(e));
          for (int i = 0; i < n_embd_; ++i) x[i] += logit[e] / z / used * d[i];
        }
      }
    }
    auto h = rmsnorm(x, w("output_norm.weight"));
    auto logits = matvec(head, h, n_vocab_);
    out.emplace_back(logits.begin(), logits.end());
  }
  return out;
}

}  // namespace a3s::power::testing
