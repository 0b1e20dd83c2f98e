#include "synth/synthesize.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "a3s/power/error.h"
#include "base/thread_pool.h"
#include "model/gguf/gguf_writer.h"
#include "kernels/kernels.h"
#include "synth/synthetic_vocab.h"

namespace a3s::power::synth {
namespace {

struct PlannedTensor {
  std::string name;
  TensorType type;
  std::vector<int64_t> ne;  // ne[0] = inputs per row
  WeightKind kind;
};

// splitmix64: a small, well-mixed generator; one per row, seeded from (seed, tensor, row).
struct SplitMix {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f; }  // [-1, 1)
};

std::vector<PlannedTensor> plan(const ModelShape& s, FileType t) {
  const int64_t e = s.n_embd, hd = s.head_size(), q = hd * s.n_head, kv = hd * s.n_head_kv, ff = s.n_ff,
                V = s.n_vocab;
  std::vector<PlannedTensor> out;
  auto add = [&](std::string name, std::vector<int64_t> ne, WeightKind kind, int layer) {
    TensorSlot slot{kind, layer, s.n_layer, ne[0], false, s.n_head / s.n_head_kv, s.n_expert};
    slot.is_head = kind == WeightKind::Output || (kind == WeightKind::TokenEmbd && s.tied_embeddings);
    out.push_back({std::move(name), tensor_type(t, slot), std::move(ne), kind});
  };
  add("token_embd.weight", {e, V}, WeightKind::TokenEmbd, -1);
  for (int il = 0; il < s.n_layer; ++il) {
    const std::string p = "blk." + std::to_string(il) + ".";
    add(p + "attn_norm.weight", {e}, WeightKind::Vector, il);
    const bool phi3 = s.arch == "phi3";
    if (phi3) {
      add(p + "attn_qkv.weight", {e, q + 2 * kv}, WeightKind::AttnQkv, il);
    } else {
      add(p + "attn_q.weight", {e, q}, WeightKind::AttnQ, il);
      add(p + "attn_k.weight", {e, kv}, WeightKind::AttnK, il);
      add(p + "attn_v.weight", {e, kv}, WeightKind::AttnV, il);
    }
    if (s.arch == "qwen2") {
      add(p + "attn_q.bias", {q}, WeightKind::Vector, il);
      add(p + "attn_k.bias", {kv}, WeightKind::Vector, il);
      add(p + "attn_v.bias", {kv}, WeightKind::Vector, il);
    }
    if (s.arch == "qwen3" || s.arch == "qwen3moe" || s.arch == "gemma3") {
      add(p + "attn_q_norm.weight", {hd}, WeightKind::Vector, il);
      add(p + "attn_k_norm.weight", {hd}, WeightKind::Vector, il);
    }
    add(p + "attn_output.weight", {q, e}, WeightKind::AttnOutput, il);
    if (s.arch == "gemma3") add(p + "post_attention_norm.weight", {e}, WeightKind::Vector, il);
    add(p + "ffn_norm.weight", {e}, WeightKind::Vector, il);
    if (s.n_expert > 0) {  // the router, then the experts' [n_expert][rows][ne0] weights
      const int64_t n_exp = s.n_expert, ffe = s.expert_ff();
      add(p + "ffn_gate_inp.weight", {e, n_exp}, WeightKind::FfnGateInp, il);
      add(p + "ffn_gate_exps.weight", {e, ffe, n_exp}, WeightKind::FfnGate, il);
      add(p + "ffn_up_exps.weight", {e, ffe, n_exp}, WeightKind::FfnUp, il);
      add(p + "ffn_down_exps.weight", {ffe, e, n_exp}, WeightKind::FfnDown, il);
    } else if (phi3) {
      add(p + "ffn_up.weight", {e, 2 * ff}, WeightKind::FfnUp, il);  // gate rows, then up rows
      add(p + "ffn_down.weight", {ff, e}, WeightKind::FfnDown, il);
    } else {
      add(p + "ffn_gate.weight", {e, ff}, WeightKind::FfnGate, il);
      add(p + "ffn_up.weight", {e, ff}, WeightKind::FfnUp, il);
      add(p + "ffn_down.weight", {ff, e}, WeightKind::FfnDown, il);
    }
    if (s.arch == "gemma3") add(p + "post_ffw_norm.weight", {e}, WeightKind::Vector, il);
  }
  add("output_norm.weight", {e}, WeightKind::Vector, -1);
  if (!s.tied_embeddings) add("output.weight", {e, V}, WeightKind::Output, -1);
  return out;
}

void write_hparams(gguf::Writer& w, const SynthOptions& o) {
  const ModelShape& s = o.shape;
  const std::string a = s.arch + ".";
  w.set_string("general.architecture", s.arch);
  w.set_string("general.name", o.name);
  w.set_u32("general.file_type", file_type_id(o.type));
  w.set_u32(a + "context_length", static_cast<uint32_t>(s.n_ctx_train));
  w.set_u32(a + "embedding_length", static_cast<uint32_t>(s.n_embd));
  w.set_u32(a + "block_count", static_cast<uint32_t>(s.n_layer));
  w.set_u32(a + "feed_forward_length", static_cast<uint32_t>(s.n_ff));
  w.set_u32(a + "attention.head_count", static_cast<uint32_t>(s.n_head));
  w.set_u32(a + "attention.head_count_kv", static_cast<uint32_t>(s.n_head_kv));
  if (s.head_dim > 0) {
    w.set_u32(a + "attention.key_length", static_cast<uint32_t>(s.head_dim));
    w.set_u32(a + "attention.value_length", static_cast<uint32_t>(s.head_dim));
  }
  w.set_u32(a + "rope.dimension_count", static_cast<uint32_t>(s.rotary_dims()));
  w.set_f32(a + "rope.freq_base", s.rope_freq_base);
  w.set_f32(a + "attention.layer_norm_rms_epsilon", s.rms_eps);
  if (s.n_expert > 0) {
    w.set_u32(a + "expert_count", static_cast<uint32_t>(s.n_expert));
    w.set_u32(a + "expert_used_count", static_cast<uint32_t>(s.n_expert_used));
    if (s.arch == "qwen3moe") w.set_u32(a + "expert_feed_forward_length", static_cast<uint32_t>(s.expert_ff()));
  }
  if (s.n_swa > 0) {
    w.set_u32(a + "attention.sliding_window", static_cast<uint32_t>(s.n_swa));
    w.set_u32(a + "attention.sliding_window_pattern", static_cast<uint32_t>(s.swa_period));
    w.set_f32(a + "rope.freq_base_swa", 10000.0f);
  }
}

// Fills rows [r0, r1) of tensor `ti` as floats into `x` (row-major, ne0 per row). A 3-D tensor's rows
// run over ne[1] then ne[2] (expert e's row j is row e * ne[1] + j).
void fill_rows(const PlannedTensor& t, uint64_t seed, size_t ti, int64_t r0, int64_t r1, float* x) {
  const int64_t n = t.ne[0];
  if (t.kind == WeightKind::Vector) {
    const bool norm = t.name.find("norm") != std::string::npos;
    SplitMix g{seed ^ (ti * 0xD1B54A32D192ED03ull)};
    for (int64_t i = 0; i < n; ++i) x[i] = norm ? 1.0f : 0.02f * g.uniform();
    return;
  }
  const float scale = std::sqrt(3.0f / static_cast<float>(n));
  for (int64_t r = r0; r < r1; ++r) {
    SplitMix g{seed ^ (ti * 0xD1B54A32D192ED03ull) ^ (static_cast<uint64_t>(r) * 0x8CB92BA72F3D8DD7ull)};
    float* row = x + (r - r0) * n;
    for (int64_t i = 0; i < n; ++i) row[i] = scale * g.uniform();
  }
}

}  // namespace

SynthResult synthesize(const SynthOptions& opts, const std::string& out,
                       const std::function<void(uint64_t, uint64_t)>& progress) {
  SynthOptions o = opts;
  gguf::Writer w;
  write_hparams(w, o);
  std::shared_ptr<gguf::File> vocab_src;
  if (o.vocab_from) {
    vocab_src = gguf::File::open(*o.vocab_from);
    o.shape.n_vocab = copy_vocab(w, *vocab_src);
  } else {
    o.shape.validate();
    add_synthetic_vocab(w, o.shape.n_vocab);
  }
  o.shape.validate();

  const std::vector<PlannedTensor> tensors = plan(o.shape, o.type);
  for (const PlannedTensor& t : tensors) w.add_tensor(t.name, t.type, t.ne);
  const uint64_t total = w.data_bytes();

  ThreadPool pool(o.n_threads);
  w.begin(out);
  // Rows are produced in chunks of ~4M values: [rows, ne0] floats, quantized in parallel.
  std::vector<float> x;
  std::vector<uint8_t> q;
  uint64_t done = 0;
  for (size_t ti = 0; ti < tensors.size(); ++ti) {
    const PlannedTensor& t = tensors[ti];
    const int64_t n = t.ne[0];
    int64_t rows = 1;  // ne[1] * ne[2] * …: every row of a 3-D expert tensor
    for (size_t d = 1; d < t.ne.size(); ++d) rows *= t.ne[d];
    const size_t row_bytes = *row_size(t.type, n);
    const int64_t chunk = std::max<int64_t>(1, (int64_t{1} << 22) / n);
    for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
      const int64_t nr = std::min(chunk, rows - r0);
      x.resize(static_cast<size_t>(nr * n));
      q.resize(static_cast<size_t>(nr) * row_bytes);
      const int n_tasks = static_cast<int>(std::min<int64_t>(nr, pool.size() * 4));
      pool.run(n_tasks, [&](int task, int n_tasks_) {
        const int64_t a = r0 + nr * task / n_tasks_, b = r0 + nr * (task + 1) / n_tasks_;
        if (a == b) return;
        float* xa = x.data() + (a - r0) * n;
        fill_rows(t, o.seed, ti, a, b, xa);
        kernels::quantize_rows(t.type, xa, q.data() + static_cast<size_t>(a - r0) * row_bytes, b - a, n, nullptr);
      });
      w.append(q);
    }
    done = w.tensors()[ti].offset + w.tensors()[ti].size_bytes;
    if (progress) progress(done, total);
  }
  w.finish();

  SynthResult res;
  res.n_params = o.shape.n_params();
  res.n_vocab = o.shape.n_vocab;
  res.file_bytes = std::filesystem::file_size(out);
  return res;
}

}  // namespace a3s::power::synth
