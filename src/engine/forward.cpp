#include "engine/forward.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>

#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "engine/memory_plan.h"
#include "engine/model_impl.h"
#include "engine/ops.h"
#include "kernels/kernels.h"

namespace a3s::power::engine {

namespace {
// The RoPE settings of sliding-window layers (llama.cpp: rope_freq_base_train_swa and a frequency
// scale of 1).
HParams swa_rope_hparams(HParams hp) {
  if (hp.n_swa > 0) {
    hp.rope_base = hp.rope_base_swa;
    hp.rope_freq_scale = 1.0f;
  }
  return hp;
}
}  // namespace

Forward::Forward(const ModelImpl& model, int n_ctx, int n_batch)
    : m_(model),
      n_batch_(n_batch),
      rope_(model.hparams(), model.rope_freqs()),
      rope_swa_(swa_rope_hparams(model.hparams()), model.rope_freqs()),
      attn_(model.hparams(), n_ctx, model.pool().size()) {
  const HParams& hp = m_.hparams();
  const size_t nb = static_cast<size_t>(n_batch_);
  x_.resize(nb * hp.n_embd);
  xn_.resize(nb * hp.n_embd);
  q_.resize(nb * hp.n_embd_q());
  k_.resize(nb * hp.n_embd_kv());
  v_.resize(nb * hp.n_embd_kv());
  att_.resize(nb * hp.n_embd_q());
  o_.resize(nb * hp.n_embd);
  gate_.resize(nb * hp.ffn_width());
  up_.resize(nb * hp.ffn_width());
  if (hp.n_expert > 0) {
    const size_t k = static_cast<size_t>(hp.n_expert_used);
    router_.resize(nb * hp.n_expert);
    chosen_.resize(nb * k);
    chosen_w_.resize(nb * k);
    expert_in_.resize(nb * hp.n_embd);
    expert_out_.resize(nb * k * hp.n_embd);
    routed_.reserve(nb);
  }
  const size_t vec = static_cast<size_t>(std::max({hp.n_embd, hp.n_embd_q(), hp.n_embd_kv()}));
  vec_a_.resize(vec);
  vec_b_.resize(vec);
  // One set of RoPE angles per thread (rope_and_store).
  rope_cache_.resize(static_cast<size_t>(std::max(2, hp.n_rot)) * static_cast<size_t>(model.pool().size()));
  act_buf_.resize(std::max<size_t>(m_.max_act_bytes(n_batch_), 1));
  rows_.reserve(nb);
  out_rows_.reserve(nb);
  act_.set_buffer(act_buf_.data());
  weights::WeightSource& ws = m_.weights();
  if (ws.rows_need_scratch()) {
    const auto& embd = ws.desc(m_.tok_embd());
    const auto& out = ws.desc(m_.output());
    const auto& norm = ws.desc(m_.output_norm());
    head_chunk_ = std::min<int64_t>(kHeadChunkRows, out.n_rows());
    row_scratch_.resize(
        std::max({embd.row_bytes, norm.row_bytes, out.row_bytes * static_cast<size_t>(head_chunk_)}));
    head_out_.resize(nb * static_cast<size_t>(head_chunk_));
  }
}

const float* Forward::small_vector(const uint8_t* data, int id, float* dst) {
  const weights::TensorDesc& d = m_.weights().desc(id);
  if (d.type == TensorType::F32) return reinterpret_cast<const float*>(data);
  kernels::dequantize_row(d.type, data, dst, d.ne[0]);
  return dst;
}

void Forward::post_norm(const LayerTensors& lt, LayerRole role, const weights::LayerLease& lease, int n) {
  if (lt[role] < 0) return;
  const HParams& hp = m_.hparams();
  const size_t n_embd = static_cast<size_t>(hp.n_embd);
  const float* w = small_vector(lease.data(lt[role]), lt[role], vec_a_.data());
  for (int t = 0; t < n; ++t) rms_norm(&o_[t * n_embd], &o_[t * n_embd], hp.n_embd, hp.rms_eps, w);
}

void Forward::linear_rows(const weights::TensorDesc& w, const uint8_t* data, const PackedWeights::Tensor* packed,
                          size_t row0, size_t rows, int n, float* y) {
  weights::TensorDesc part = w;
  part.ne[1] = static_cast<int64_t>(rows);
  // A part that starts on a panel is the panels from there (kernels.h, kPackedPanelRows).
  PackedWeights::Tensor part_packed{};
  const bool on_panel = packed != nullptr && row0 % static_cast<size_t>(kernels::kPackedPanelRows) == 0;
  if (on_panel) {
    part_packed = *packed;
    part_packed.bytes += kernels::packed_weight_bytes(w.type, static_cast<int64_t>(row0), w.ne[0]);
  }
  linear(part, data + row0 * w.row_bytes, xn_.data(), n, y, act_, m_.pool(), on_panel ? &part_packed : nullptr);
}

void Forward::run(std::span<const Segment> segments) {
  int n = 0;
  for (const Segment& sg : segments) {
    const int len = static_cast<int>(sg.tokens.size());
    if (sg.kv == nullptr || len <= 0 || sg.n_out < 0 || sg.n_out > len || (sg.n_out > 0 && sg.logits == nullptr) ||
        sg.pos0 < 0 || sg.pos0 + len > sg.kv->capacity())
      throw Error(codes::kInternal, "forward segment out of range");
    n += len;
  }
  if (n <= 0 || n > n_batch_) throw Error(codes::kInternal, "forward batch out of range");
  rows_.clear();
  int n_ctx = 0;
  for (const Segment& sg : segments) {
    for (int t = 0; t < static_cast<int>(sg.tokens.size()); ++t) rows_.push_back({sg.kv, sg.pos0 + t});
    n_ctx = std::max(n_ctx, sg.kv->n_ctx());
  }
  attn_.reserve_ctx(n_ctx);
  used_rows_ = std::max(used_rows_, n);
  embed(segments);
  for (int il = 0; il < m_.hparams().n_layer; ++il) layer(il, n);
  head(segments);
}

void Forward::embed(std::span<const Segment> segments) {
  weights::WeightSource& ws = m_.weights();
  const weights::TensorDesc& d = ws.desc(m_.tok_embd());
  const int64_t n_embd = m_.hparams().n_embd;
  size_t t = 0;
  for (const Segment& sg : segments) {
    for (Token tok : sg.tokens) {
      const uint8_t* row = ws.read_rows(m_.tok_embd(), tok, 1, row_scratch_);
      float* x = x_.data() + t * n_embd;
      kernels::dequantize_row(d.type, row, x, n_embd);
      if (m_.hparams().embd_scale > 0.0f)
        for (int64_t i = 0; i < n_embd; ++i) x[i] *= m_.hparams().embd_scale;
      ++t;
    }
  }
}

void Forward::layer(int il, int n) {
  const HParams& hp = m_.hparams();
  const LayerTensors& lt = m_.layer(il);
  weights::WeightSource& ws = m_.weights();
  ThreadPool& pool = m_.pool();
  weights::LayerLease lease = ws.acquire_layer(il);
  auto desc = [&](LayerRole r) -> const weights::TensorDesc& { return ws.desc(lt[r]); };
  auto data = [&](LayerRole r) { return lease.data(lt[r]); };
  auto packed = [&](LayerRole r) { return m_.packed(lt[r]); };
  const size_t n_embd = static_cast<size_t>(hp.n_embd), n_q = static_cast<size_t>(hp.n_embd_q()),
               n_kv = static_cast<size_t>(hp.n_embd_kv()), n_ff = static_cast<size_t>(hp.ffn_width());

  // Attention block.
  const float* w_norm = small_vector(data(LayerRole::AttnNorm), lt[LayerRole::AttnNorm], vec_a_.data());
  for (int t = 0; t < n; ++t) rms_norm(&x_[t * n_embd], &xn_[t * n_embd], hp.n_embd, hp.rms_eps, w_norm);
  act_.invalidate();
  if (lt[LayerRole::Wqkv] >= 0) {
    // Fused QKV (phi3): the Q, K and V rows of one tensor, each block of rows used as its own matrix.
    linear_rows(desc(LayerRole::Wqkv), data(LayerRole::Wqkv), packed(LayerRole::Wqkv), 0, n_q, n, q_.data());
    linear_rows(desc(LayerRole::Wqkv), data(LayerRole::Wqkv), packed(LayerRole::Wqkv), n_q, n_kv, n, k_.data());
    linear_rows(desc(LayerRole::Wqkv), data(LayerRole::Wqkv), packed(LayerRole::Wqkv), n_q + n_kv, n_kv, n, v_.data());
  } else {
    linear(desc(LayerRole::Wq), data(LayerRole::Wq), xn_.data(), n, q_.data(), act_, pool, packed(LayerRole::Wq));
    linear(desc(LayerRole::Wk), data(LayerRole::Wk), xn_.data(), n, k_.data(), act_, pool, packed(LayerRole::Wk));
    linear(desc(LayerRole::Wv), data(LayerRole::Wv), xn_.data(), n, v_.data(), act_, pool, packed(LayerRole::Wv));
  }
  struct BiasTarget {
    LayerRole role;
    float* y;
    size_t width;
  };
  for (const BiasTarget& b : {BiasTarget{LayerRole::Bq, q_.data(), n_q}, BiasTarget{LayerRole::Bk, k_.data(), n_kv},
                              BiasTarget{LayerRole::Bv, v_.data(), n_kv}}) {
    if (lt[b.role] < 0) continue;
    const float* bias = small_vector(data(b.role), lt[b.role], vec_b_.data());
    for (int t = 0; t < n; ++t) add_inplace(b.y + t * b.width, bias, static_cast<int64_t>(b.width));
  }
  // Per-head RMSNorm of Q and K (qwen3), in place, before RoPE.
  struct HeadNormTarget {
    LayerRole role;
    float* y;
    int n_heads;
  };
  for (const HeadNormTarget& h : {HeadNormTarget{LayerRole::AttnQNorm, q_.data(), hp.n_head},
                                  HeadNormTarget{LayerRole::AttnKNorm, k_.data(), hp.n_head_kv}}) {
    if (lt[h.role] < 0) continue;
    const float* w = small_vector(data(h.role), lt[h.role], vec_b_.data());
    const size_t hd = static_cast<size_t>(hp.head_dim);
    for (size_t row = 0; row < static_cast<size_t>(n) * static_cast<size_t>(h.n_heads); ++row)
      rms_norm(h.y + row * hd, h.y + row * hd, hp.head_dim, hp.rms_eps, w);
  }
  const bool swa = hp.is_swa(il);
  rope_and_store(il, n, swa ? rope_swa_ : rope_);
  attn_.run(rows_, il, q_.data(), att_.data(), pool, swa ? hp.n_swa : 0);
  act_.invalidate();
  linear(desc(LayerRole::Wo), data(LayerRole::Wo), att_.data(), n, o_.data(), act_, pool, packed(LayerRole::Wo));
  post_norm(lt, LayerRole::AttnPostNorm, lease, n);
  add_inplace(x_.data(), o_.data(), static_cast<int64_t>(n * n_embd));

  // Feed-forward block (SwiGLU or GeGLU; routed experts for a mixture of experts).
  const float* f_norm = small_vector(data(LayerRole::FfnNorm), lt[LayerRole::FfnNorm], vec_a_.data());
  for (int t = 0; t < n; ++t) rms_norm(&x_[t * n_embd], &xn_[t * n_embd], hp.n_embd, hp.rms_eps, f_norm);
  act_.invalidate();
  if (hp.n_expert > 0) {
    moe_ffn(lt, lease, n);
  } else {
    if (m_.arch().fused_gate_up) {
      // ffn_up holds the gate rows, then the up rows (phi3).
      linear_rows(desc(LayerRole::FfnUp), data(LayerRole::FfnUp), packed(LayerRole::FfnUp), 0, n_ff, n, gate_.data());
      linear_rows(desc(LayerRole::FfnUp), data(LayerRole::FfnUp), packed(LayerRole::FfnUp), n_ff, n_ff, n, up_.data());
    } else {
      linear(desc(LayerRole::FfnGate), data(LayerRole::FfnGate), xn_.data(), n, gate_.data(), act_, pool, packed(LayerRole::FfnGate));
      linear(desc(LayerRole::FfnUp), data(LayerRole::FfnUp), xn_.data(), n, up_.data(), act_, pool, packed(LayerRole::FfnUp));
    }
    glu(n);
    act_.invalidate();
    linear(desc(LayerRole::FfnDown), data(LayerRole::FfnDown), gate_.data(), n, o_.data(), act_, pool, packed(LayerRole::FfnDown));
  }
  post_norm(lt, LayerRole::FfnPostNorm, lease, n);
  add_inplace(x_.data(), o_.data(), static_cast<int64_t>(n * n_embd));
  act_.invalidate();
}

void Forward::rope_and_store(int il, int n, const Rope& rope) {
  const HParams& hp = m_.hparams();
  const size_t n_q = static_cast<size_t>(hp.n_embd_q()), n_kv = static_cast<size_t>(hp.n_embd_kv()),
               hd = static_cast<size_t>(hp.head_dim);
  const int n_gqa = hp.n_head / hp.n_head_kv;
  ThreadPool& pool = m_.pool();
  // A task takes a range of KV heads: their query heads' and their own RoPE, and their dimensions of
  // the K and V rows in the cache (the V rows go in transposed, a cache line per dimension, each a
  // miss after a pass over the weights). Small steps run on the calling thread alone.
  constexpr int64_t kParallelValues = 1024;
  const int n_tasks = static_cast<int64_t>(n) * static_cast<int64_t>(n_kv) < kParallelValues
                          ? 1
                          : std::min(pool.active_threads(), hp.n_head_kv);
  auto body = [&](int task, int parts) {
    const int g0 = hp.n_head_kv * task / parts, g1 = hp.n_head_kv * (task + 1) / parts;
    float* angles = rope_cache_.data() + static_cast<size_t>(task) * (rope_cache_.size() / static_cast<size_t>(pool.size()));
    for (int t = 0; t < n; ++t) {
      const AttentionRow& r = rows_[static_cast<size_t>(t)];
      float* q = &q_[static_cast<size_t>(t) * n_q + static_cast<size_t>(g0 * n_gqa) * hd];
      float* k = &k_[static_cast<size_t>(t) * n_kv];
      rope.angles(r.pos, angles);
      rope.apply(q, (g1 - g0) * n_gqa, angles);
      rope.apply(k + static_cast<size_t>(g0) * hd, g1 - g0, angles);
      if (hp.q_scale > 0.0f)
        for (size_t i = 0; i < static_cast<size_t>((g1 - g0) * n_gqa) * hd; ++i) q[i] *= hp.q_scale;
      r.kv->store(il, r.pos, k, &v_[static_cast<size_t>(t) * n_kv], g0 * hp.head_dim, g1 * hp.head_dim);
    }
  };
  pool.run(n_tasks, std::ref(body));  // by reference: no allocation per step
}

void Forward::glu(int n) {
  const int64_t n_ff = m_.hparams().ffn_width();
  const bool gelu = m_.arch().ffn_act == FfnActivation::GeluTanh;
  ThreadPool& pool = m_.pool();
  // Each task takes a range of whole column groups of every row (ops.h: the same bits as one call).
  constexpr int64_t kParallelValues = 4096;
  const int64_t n_groups = (n_ff + kGluColumnGroup - 1) / kGluColumnGroup;
  const int n_tasks = n * n_ff < kParallelValues ? 1 : static_cast<int>(std::min<int64_t>(pool.active_threads(), n_groups));
  auto body = [&](int task, int parts) {
    const int64_t c0 = std::min(n_ff, n_groups * task / parts * kGluColumnGroup);
    const int64_t c1 = std::min(n_ff, n_groups * (task + 1) / parts * kGluColumnGroup);
    for (int t = 0; t < n; ++t) {
      float* g = &gate_[static_cast<size_t>(t * n_ff + c0)];
      const float* u = &up_[static_cast<size_t>(t * n_ff + c0)];
      if (gelu) {
        geglu(g, u, 1, c1 - c0);
      } else {
        swiglu(g, u, 1, c1 - c0);
      }
    }
  };
  pool.run(n_tasks, std::ref(body));  // by reference: no allocation per step
}

void Forward::moe_ffn(const LayerTensors& lt, const weights::LayerLease& lease, int n) {
  // As llama.cpp's build_moe_ffn with softmax gating and normalised weights: probabilities =
  // softmax(router logits); the k most probable experts, best first; their probabilities divided by
  // their sum (at least 2^-14); each expert's SwiGLU FFN output times its weight; the k outputs
  // added in that order. Each expert runs once for all the batch rows routed to it, and its weights
  // are read (a streaming source reads just its plane) only when some row is.
  const HParams& hp = m_.hparams();
  weights::WeightSource& ws = m_.weights();
  ThreadPool& pool = m_.pool();
  const size_t n_embd = static_cast<size_t>(hp.n_embd), n_ff = static_cast<size_t>(hp.n_ff_exp),
               n_exp = static_cast<size_t>(hp.n_expert), k = static_cast<size_t>(hp.n_expert_used);
  const int router = lt[LayerRole::FfnGateInp];
  linear(ws.desc(router), lease.data(router), xn_.data(), n, router_.data(), act_, pool, m_.packed(router));
  act_.invalidate();
  for (size_t t = 0; t < static_cast<size_t>(n); ++t) {
    float* p = &router_[t * n_exp];
    softmax_scaled(p, static_cast<int64_t>(n_exp), 1.0f);
    int* chosen = &chosen_[t * k];
    float* w = &chosen_w_[t * k];
    // Top k by probability, ties to the lower expert index.
    for (size_t j = 0; j < k; ++j) {
      int best = -1;
      for (size_t e = 0; e < n_exp; ++e) {
        if (std::find(chosen, chosen + j, static_cast<int>(e)) != chosen + j) continue;
        if (best < 0 || p[e] > p[static_cast<size_t>(best)]) best = static_cast<int>(e);
      }
      chosen[j] = best;
      w[j] = p[static_cast<size_t>(best)];
    }
    double sum = 0.0;  // ggml's sum_rows accumulates in double
    for (size_t j = 0; j < k; ++j) sum += w[j];
    const float denom = std::max(static_cast<float>(sum), 6.103515625e-5f);
    for (size_t j = 0; j < k; ++j) w[j] /= denom;
  }
  auto part = [&](LayerRole r) {
    weights::TensorDesc d = ws.desc(lt[r]);
    d.ne[2] = d.ne[3] = 1;  // one expert's matrix
    return d;
  };
  const weights::TensorDesc gate = part(LayerRole::FfnGateExps), up = part(LayerRole::FfnUpExps),
                            down = part(LayerRole::FfnDownExps);
  for (size_t e = 0; e < n_exp; ++e) {
    routed_.clear();  // (row, slot) pairs as row * k + slot, in batch order
    for (size_t i = 0; i < static_cast<size_t>(n) * k; ++i)
      if (chosen_[i] == static_cast<int>(e)) routed_.push_back(static_cast<int>(i));
    if (routed_.empty()) continue;
    const int64_t m = static_cast<int64_t>(routed_.size());
    for (size_t r = 0; r < routed_.size(); ++r)
      std::memcpy(&expert_in_[r * n_embd], &xn_[static_cast<size_t>(routed_[r]) / k * n_embd], n_embd * sizeof(float));
    act_.invalidate();
    const int64_t plane = static_cast<int64_t>(e);
    // Expert e's matrices: its plane of each stacked tensor, and of their panels when packed.
    PackedWeights::Tensor one{};
    auto packed_plane = [&](LayerRole r) {
      const PackedWeights::Tensor* t = m_.packed(lt[r]);
      return t != nullptr ? t->plane(plane, one) : nullptr;
    };
    linear(gate, lease.plane(lt[LayerRole::FfnGateExps], plane), expert_in_.data(), m, gate_.data(), act_, pool,
           packed_plane(LayerRole::FfnGateExps));
    linear(up, lease.plane(lt[LayerRole::FfnUpExps], plane), expert_in_.data(), m, up_.data(), act_, pool,
           packed_plane(LayerRole::FfnUpExps));
    swiglu(gate_.data(), up_.data(), m, static_cast<int64_t>(n_ff));
    act_.invalidate();
    linear(down, lease.plane(lt[LayerRole::FfnDownExps], plane), gate_.data(), m, expert_in_.data(), act_, pool,
           packed_plane(LayerRole::FfnDownExps));
    for (size_t r = 0; r < routed_.size(); ++r) {
      const size_t slot = static_cast<size_t>(routed_[r]);
      const float w = chosen_w_[slot];
      const float* y = &expert_in_[r * n_embd];
      float* dst = &expert_out_[slot * n_embd];
      for (size_t i = 0; i < n_embd; ++i) dst[i] = y[i] * w;
    }
  }
  act_.invalidate();
  for (size_t t = 0; t < static_cast<size_t>(n); ++t) {
    float* o = &o_[t * n_embd];
    std::memcpy(o, &expert_out_[t * k * n_embd], n_embd * sizeof(float));
    for (size_t j = 1; j < k; ++j) add_inplace(o, &expert_out_[(t * k + j) * n_embd], static_cast<int64_t>(n_embd));
  }
}

void Forward::head(std::span<const Segment> segments) {
  const HParams& hp = m_.hparams();
  weights::WeightSource& ws = m_.weights();
  ThreadPool& pool = m_.pool();
  const size_t n_embd = static_cast<size_t>(hp.n_embd);
  const size_t n_vocab = static_cast<size_t>(hp.n_vocab);
  // The rows that want logits, in batch order, and where each goes.
  out_rows_.clear();
  int n_out = 0, with_logits = 0;
  bool with_hidden = false;
  for (const Segment& sg : segments) {
    for (int i = 0; i < sg.n_out; ++i) out_rows_.push_back(sg.logits + static_cast<size_t>(i) * n_vocab);
    n_out += sg.n_out;
    with_logits += sg.n_out > 0 ? 1 : 0;
    with_hidden = with_hidden || sg.hidden != nullptr;
  }
  if (n_out == 0 && !with_hidden) return;
  const float* w_norm = small_vector(ws.read_rows(m_.output_norm(), 0, 1, row_scratch_), m_.output_norm(),
                                     vec_a_.data());
  int row = 0, t0 = 0;
  if (with_hidden) {
    // Final hidden states: every token of the segments that ask for them, normed as the head's input.
    for (const Segment& sg : segments) {
      const int len = static_cast<int>(sg.tokens.size());
      if (sg.hidden != nullptr)
        for (int i = 0; i < len; ++i)
          rms_norm(&x_[static_cast<size_t>(t0 + i) * n_embd], sg.hidden + static_cast<size_t>(i) * n_embd, hp.n_embd,
                   hp.rms_eps, w_norm);
      t0 += len;
    }
    t0 = 0;
    if (n_out == 0) return;
  }
  for (const Segment& sg : segments) {
    const int len = static_cast<int>(sg.tokens.size());
    for (int i = len - sg.n_out; i < len; ++i, ++row)
      rms_norm(&x_[static_cast<size_t>(t0 + i) * n_embd], &xn_[static_cast<size_t>(row) * n_embd], hp.n_embd,
               hp.rms_eps, w_norm);
    t0 += len;
  }
  act_.invalidate();
  const weights::TensorDesc& out = ws.desc(m_.output());
  if (!ws.rows_need_scratch()) {
    // One segment writes its rows in place; several go through one buffer and are scattered.
    float* dst = out_rows_[0];
    if (with_logits > 1) {
      if (logits_.size() < static_cast<size_t>(n_out) * n_vocab) {
        crypto::wipe_allocation(logits_);
        logits_.assign(static_cast<size_t>(n_out) * n_vocab, 0.0f);
      }
      dst = logits_.data();
    }
    linear(out, ws.read_rows(m_.output(), 0, out.n_rows(), {}), xn_.data(), n_out, dst, act_, pool,
           m_.packed(m_.output()));
    if (with_logits > 1)
      for (int t = 0; t < n_out; ++t)
        std::memcpy(out_rows_[static_cast<size_t>(t)], &logits_[static_cast<size_t>(t) * n_vocab],
                    n_vocab * sizeof(float));
  } else {
    // Row-chunked head: each chunk of vocabulary rows is read, multiplied, and scattered.
    weights::TensorDesc chunk = out;
    for (int64_t r0 = 0; r0 < out.n_rows(); r0 += head_chunk_) {
      const int64_t rows = std::min(head_chunk_, out.n_rows() - r0);
      chunk.ne[1] = rows;
      const uint8_t* w = ws.read_rows(m_.output(), r0, rows, row_scratch_);
      linear(chunk, w, xn_.data(), n_out, head_out_.data(), act_, pool);
      for (int t = 0; t < n_out; ++t)
        std::memcpy(out_rows_[static_cast<size_t>(t)] + r0, &head_out_[static_cast<size_t>(t * rows)],
                    static_cast<size_t>(rows) * sizeof(float));
    }
  }
  act_.invalidate();
  if (hp.logit_softcap > 0.0f) {
    // logits = c·tanh(logits / c), as ggml: scale, tanh, scale.
    const float c = hp.logit_softcap, inv = 1.0f / c;
    for (float* row : out_rows_)
      for (size_t i = 0; i < n_vocab; ++i) row[i] = std::tanh(row[i] * inv) * c;
  }
}

void Forward::wipe() noexcept {
  // Row-major [n_batch, width] buffers: only the first used_rows_ rows can hold anything.
  const size_t rows = static_cast<size_t>(used_rows_);
  const HParams& hp = m_.hparams();
  auto wipe_rows = [rows](std::vector<float>& v, size_t width) {
    if (!v.empty()) crypto::wipe(v.data(), std::min(v.size(), rows * width) * sizeof(float));
  };
  wipe_rows(x_, static_cast<size_t>(hp.n_embd));
  wipe_rows(xn_, static_cast<size_t>(hp.n_embd));
  wipe_rows(o_, static_cast<size_t>(hp.n_embd));
  wipe_rows(q_, static_cast<size_t>(hp.n_embd_q()));
  wipe_rows(att_, static_cast<size_t>(hp.n_embd_q()));
  wipe_rows(k_, static_cast<size_t>(hp.n_embd_kv()));
  wipe_rows(v_, static_cast<size_t>(hp.n_embd_kv()));
  wipe_rows(gate_, static_cast<size_t>(hp.ffn_width()));
  wipe_rows(up_, static_cast<size_t>(hp.ffn_width()));
  wipe_rows(router_, static_cast<size_t>(hp.n_expert));
  wipe_rows(chosen_w_, static_cast<size_t>(hp.n_expert_used));
  wipe_rows(expert_in_, static_cast<size_t>(hp.n_embd));
  wipe_rows(expert_out_, static_cast<size_t>(hp.n_expert_used) * static_cast<size_t>(hp.n_embd));
  for (int& c : chosen_) c = 0;
  routed_.clear();
  wipe_rows(head_out_, static_cast<size_t>(head_chunk_));
  for (auto* v : {&vec_a_, &vec_b_, &logits_}) crypto::wipe_allocation(*v);
  if (!act_buf_.empty()) crypto::wipe(act_buf_.data(), std::min(act_buf_.size(), m_.max_act_bytes(used_rows_)));
  act_.invalidate();  // its converted activations are gone
  crypto::wipe_allocation(row_scratch_);
  attn_.wipe();
  used_rows_ = 0;
}

}  // namespace a3s::power::engine
