// Model::load: open the GGUF, pick the architecture's graph, read hyper-parameters, resolve and
// check every tensor (presence, shape, type), build the tokenizer and the thread pool.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <span>

#include "a3s/power/error.h"
#include "base/printable.h"
#include "base/process_memory.h"
#include "engine/memory_plan.h"
#include "engine/model_impl.h"
#include "engine/residency.h"
#include "model/gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "tokenizer/tokenizer.h"
#include "model/sources/mapped_weights.h"
#include "model/sources/streaming_weights.h"

namespace a3s::power {
namespace engine {
namespace {

// Heap growth while loading (tokenizer tables, metadata) on top of the RSS measured before loading.
constexpr uint64_t kBaselineMargin = 16ull * 1024 * 1024;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_matmul_type(TensorType t) {
  switch (t) {
    case TensorType::F32:
    case TensorType::F16:
    case TensorType::BF16:
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::Q8_0:
    case TensorType::Q2_K:
    case TensorType::Q3_K:
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K:
    case TensorType::IQ4_NL:
    case TensorType::IQ4_XS:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void unsupported_type(const weights::TensorDesc& d) {
  throw Error(codes::kUnsupportedType,
              "tensor " + d.name + " has type " + type_name(d.type) + ", which the engine cannot compute");
}

// What a tensor is used for decides which types are acceptable.
enum class Use { Matmul, Rows /* dequantized rows: embeddings, norms, biases */ };

// shape: [ne0, ne1, ne2]; ne1 = 1 for a vector, ne2 = 1 (or left out) for a matrix, ne2 > 1 for
// stacked matrices (experts).
void check_tensor(const weights::TensorDesc& d, std::array<int64_t, 3> shape, Use use) {
  if (shape[2] == 0) shape[2] = 1;
  const int dims = shape[2] > 1 ? 3 : shape[1] > 1 ? 2 : 1;
  // Trailing dimensions of 1 change nothing (a single expert is [n_embd, n_ff, 1]).
  const bool shape_ok = d.ne[0] == shape[0] && d.ne[1] == shape[1] && d.ne[2] == shape[2] && d.ne[3] == 1 &&
                        d.n_dims >= dims;
  if (!shape_ok) {
    auto shown = [](std::span<const int64_t> ne, int n) {
      std::string s = "[";
      for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(ne[static_cast<size_t>(i)]);
      return s + "]";
    };
    throw Error(codes::kInvalidModel, "tensor " + d.name + " has shape " + shown(d.ne, std::max(2, d.n_dims)) +
                                          ", expected " + shown(shape, std::max(2, dims)));
  }
  auto ti = type_info(static_cast<uint32_t>(d.type));
  if (!ti || !ti->weight_type) unsupported_type(d);
  if (use == Use::Matmul) {
    if (!is_matmul_type(d.type)) unsupported_type(d);
    const TensorType act = kernels::vec_dot_type(d.type);
    if (!row_size(act, d.ne[0]))
      throw Error(codes::kInvalidModel, "tensor " + d.name + ": row length " + std::to_string(d.ne[0]) +
                                            " does not fit the " + type_name(act) + " activation blocks");
  }
}

}  // namespace

ModelImpl::ModelImpl(ModelInfo info, HParams hp, const ArchSpec& arch, std::shared_ptr<const gguf::File> file,
                     std::unique_ptr<weights::WeightSource> weights, std::unique_ptr<Tokenizer> tokenizer,
                     const ModelOptions& opts, bool pack_weights)
    : info_(std::move(info)),
      hp_(std::move(hp)),
      arch_(arch),
      opts_(opts),
      file_(std::move(file)),
      weights_(std::move(weights)),
      tokenizer_(std::move(tokenizer)),
      compute_mu_(std::make_unique<std::mutex>()) {
  if (opts_.n_batch <= 0) throw Error(codes::kInvalidArgument, "n_batch must be positive");
  if (opts_.n_threads < 0) throw Error(codes::kInvalidArgument, "n_threads must not be negative");
  resolve_tensors();
  // One forward pass asks for block tensors layer by layer, in kLayerUseOrder. The stacked experts
  // are not in it: the pass reads only the planes of the experts it routes to.
  std::vector<int> order;
  for (const LayerTensors& lt : layers_)
    for (LayerRole r : kLayerUseOrder)
      if (lt[r] >= 0 && !weights_->desc(lt[r]).stacked()) order.push_back(lt[r]);
  weights_->set_access_order(std::move(order));
  pool_ = std::make_unique<ThreadPool>(opts_.n_threads);
  if (pack_weights) packed_ = std::make_unique<PackedWeights>(*weights_, *pool_, output_);
  kv_pool_ = std::make_unique<KvBlockPool>(hp_.n_layer, hp_.n_embd_kv(), 0);
  // Capacity: kv_cache_bytes, and within a memory budget at most the budget's context.
  int64_t blocks = 0;
  if (opts_.kv_cache_bytes > 0) {
    blocks = static_cast<int64_t>(opts_.kv_cache_bytes / kv_pool_->block_bytes());
    if (blocks == 0)
      throw Error(codes::kInvalidArgument, "a KV cache of " + std::to_string(opts_.kv_cache_bytes) +
                                               " bytes holds no block of " + std::to_string(kKvBlockTokens) +
                                               " positions (" + std::to_string(kv_pool_->block_bytes()) +
                                               " bytes for this model)");
  }
  if (info_.n_ctx_max > 0) {
    const int64_t budget_blocks = std::max<int64_t>(1, info_.n_ctx_max / kKvBlockTokens);
    blocks = blocks > 0 ? std::min(blocks, budget_blocks) : budget_blocks;
  }
  kv_pool_->set_capacity(blocks);
  batcher_ = std::make_unique<StepBatcher>(*this);
}

KvCacheStats ModelImpl::kv_cache_stats() const {
  const KvPoolStats s = kv_pool_->stats();
  return {s.blocks_total, s.blocks_in_use, s.blocks_reserved, s.waiting, s.block_bytes, s.blocks_wiped};
}

ModelImpl::~ModelImpl() = default;

void ModelImpl::resolve_tensors() {
  const weights::WeightSource& w = *weights_;
  auto require = [&](const std::string& name) {
    auto id = w.find(name);
    if (!id) throw Error(codes::kInvalidModel, "missing tensor " + name);
    return *id;
  };
  const int64_t n_embd = hp_.n_embd, n_vocab = hp_.n_vocab, n_ff = hp_.n_ff;
  const int64_t n_q = hp_.n_embd_q(), n_kv = hp_.n_embd_kv();

  tok_embd_ = require(arch_.token_embd);
  check_tensor(w.desc(tok_embd_), {n_embd, n_vocab}, Use::Rows);
  output_norm_ = require(arch_.output_norm);
  check_tensor(w.desc(output_norm_), {n_embd, 1}, Use::Rows);
  if (auto out = w.find(arch_.output)) {
    output_ = *out;
  } else {
    output_ = tok_embd_;  // tied embeddings
  }
  check_tensor(w.desc(output_), {n_embd, n_vocab}, Use::Matmul);

  const int64_t n_ff_exp = hp_.n_ff_exp, n_expert = hp_.n_expert;
  auto shape_of = [&](LayerRole r) -> std::pair<std::array<int64_t, 3>, Use> {
    switch (r) {
      case LayerRole::AttnNorm:
      case LayerRole::FfnNorm:
      case LayerRole::AttnPostNorm:
      case LayerRole::FfnPostNorm: return {{n_embd, 1}, Use::Rows};
      case LayerRole::Wq: return {{n_embd, n_q}, Use::Matmul};
      case LayerRole::Wk:
      case LayerRole::Wv: return {{n_embd, n_kv}, Use::Matmul};
      case LayerRole::Bq: return {{n_q, 1}, Use::Rows};
      case LayerRole::Bk:
      case LayerRole::Bv: return {{n_kv, 1}, Use::Rows};
      case LayerRole::Wo: return {{n_q, n_embd}, Use::Matmul};
      case LayerRole::FfnGate:
      case LayerRole::FfnUp: return {{n_embd, arch_.fused_gate_up ? 2 * n_ff : n_ff}, Use::Matmul};
      case LayerRole::FfnDown: return {{n_ff, n_embd}, Use::Matmul};
      case LayerRole::AttnQNorm:
      case LayerRole::AttnKNorm: return {{hp_.head_dim, 1}, Use::Rows};
      case LayerRole::Wqkv: return {{n_embd, n_q + 2 * n_kv}, Use::Matmul};
      case LayerRole::FfnGateInp: return {{n_embd, n_expert}, Use::Matmul};
      case LayerRole::FfnGateExps:
      case LayerRole::FfnUpExps: return {{n_embd, n_ff_exp, n_expert}, Use::Matmul};
      case LayerRole::FfnDownExps: return {{n_ff_exp, n_embd, n_expert}, Use::Matmul};
      case LayerRole::Count: break;
    }
    throw Error(codes::kInternal, "bad layer role");
  };

  std::vector<bool> used(w.tensors().size(), false);
  auto use = [&](int id) { used[static_cast<size_t>(id)] = true; };
  use(tok_embd_);
  use(output_norm_);
  use(output_);
  if (arch_.rope_freqs) {
    if (auto id = w.find(arch_.rope_freqs)) {
      check_tensor(w.desc(*id), {hp_.n_rot / 2, 1}, Use::Rows);
      read_rope_freqs(*id);
      use(*id);
    }
  }

  if (w.n_layers() > hp_.n_layer)
    throw Error(codes::kInvalidModel, "tensors for more blocks than block_count");
  // Experts in a layout or count the file's metadata does not describe: named rather than reported
  // as a missing dense tensor.
  if (w.find("blk.0.ffn_gate.0.weight") || w.find("blk.0.ffn_up.0.weight"))
    throw Error(codes::kUnsupportedModelFeature,
                "model stores its experts one tensor per expert (blk.0.ffn_gate.0.weight, …), an older "
                "layout that is not supported; convert it again with a current llama.cpp");
  if (hp_.n_expert == 0 && w.find("blk.0.ffn_gate_inp.weight"))
    throw Error(codes::kInvalidModel, "model has expert tensors (blk.0.ffn_gate_inp.weight) but " + hp_.arch +
                                          ".expert_count is 0 or absent");
  layers_.resize(static_cast<size_t>(hp_.n_layer));
  for (int il = 0; il < hp_.n_layer; ++il) {
    LayerTensors& lt = layers_[static_cast<size_t>(il)];
    for (int r = 0; r < kLayerRoles; ++r) {
      lt.id[static_cast<size_t>(r)] = -1;
      const LayerTensorSpec& spec = arch_.layer[static_cast<size_t>(r)];
      Presence presence = spec.presence;
      // A block has the dense FFN or the experts (hp_.n_expert), and a tensor of the other form is
      // left unused (refused below).
      if (is_expert_role(static_cast<LayerRole>(r)))
        presence = hp_.n_expert > 0 ? Presence::Required : Presence::Absent;
      else if (is_dense_ffn_role(static_cast<LayerRole>(r)) && hp_.n_expert > 0)
        presence = Presence::Absent;
      if (presence == Presence::Absent) continue;
      const std::string name = "blk." + std::to_string(il) + "." + spec.suffix;
      auto id = w.find(name);
      if (!id) {
        if (presence == Presence::Required) throw Error(codes::kInvalidModel, "missing tensor " + name);
        continue;
      }
      auto [shape, how] = shape_of(static_cast<LayerRole>(r));
      check_tensor(w.desc(*id), shape, how);
      lt.id[static_cast<size_t>(r)] = *id;
      use(*id);
    }
    // Exactly one form of the QKV projection: all of Q, K and V, or the fused tensor.
    const bool split = lt[LayerRole::Wq] >= 0 && lt[LayerRole::Wk] >= 0 && lt[LayerRole::Wv] >= 0;
    const bool any_split = lt[LayerRole::Wq] >= 0 || lt[LayerRole::Wk] >= 0 || lt[LayerRole::Wv] >= 0;
    const bool fused = lt[LayerRole::Wqkv] >= 0;
    if (fused ? any_split : !split)
      throw Error(codes::kInvalidModel, "block " + std::to_string(il) +
                                            (fused ? " has attn_qkv.weight and separate Q/K/V projections"
                                                   : " lacks its Q, K or V projection (attn_q/attn_k/attn_v or attn_qkv)"));
  }

  // A tensor the graph does not read would change nothing here but something in the model's own
  // math (a bias, a norm, a frequency table): refuse rather than answer differently.
  for (size_t i = 0; i < used.size(); ++i) {
    if (used[i]) continue;
    throw Error(codes::kUnsupportedModelFeature, "model has tensor " + gguf::shown_text(w.tensors()[i].name) +
                                                     ", which the " + hp_.arch + " graph does not use");
  }
}

void ModelImpl::read_rope_freqs(int id) {
  weights::WeightSource& w = *weights_;
  const weights::TensorDesc& d = w.desc(id);
  std::vector<uint8_t> scratch(w.rows_need_scratch() ? d.row_bytes : 0);
  const uint8_t* row = w.read_rows(id, 0, 1, scratch);
  rope_freqs_.resize(static_cast<size_t>(d.ne[0]));
  kernels::dequantize_row(d.type, row, rope_freqs_.data(), d.ne[0]);
  // The factors divide rotation frequencies: below kMinRopeFreqFactor the angles of a long context
  // would overflow float (inf → NaN logits). Llama 3's factors are between 1 and the scaling factor.
  constexpr float kMinRopeFreqFactor = 1e-6f;
  for (float f : rope_freqs_)
    if (!std::isfinite(f) || !(f >= kMinRopeFreqFactor))
      throw Error(codes::kInvalidModel, "tensor " + d.name + " has a factor that is not a finite number of at least 1e-6");
}

size_t ModelImpl::max_act_bytes(int n_tokens) const {
  size_t best = 0;
  auto consider = [&](int id) {
    if (id < 0) return;
    const weights::TensorDesc& d = weights_->desc(id);
    const size_t row = row_size(kernels::vec_dot_type(d.type), d.ne[0]).value_or(0);
    best = std::max(best, row * static_cast<size_t>(n_tokens));
  };
  consider(output_);
  for (const LayerTensors& lt : layers_)
    for (LayerRole r : {LayerRole::Wq, LayerRole::Wk, LayerRole::Wv, LayerRole::Wqkv, LayerRole::Wo,
                        LayerRole::FfnGate, LayerRole::FfnUp, LayerRole::FfnDown, LayerRole::FfnGateInp,
                        LayerRole::FfnGateExps, LayerRole::FfnUpExps, LayerRole::FfnDownExps})
      consider(lt[r]);
  return best;
}

}  // namespace engine

std::shared_ptr<Model> Model::load(const std::string& path, const ModelOptions& opts) {
  return load(gguf::File::open(path), opts);
}

std::shared_ptr<Model> Model::load(std::shared_ptr<const gguf::File> file, const ModelOptions& opts,
                                   std::optional<EncryptionInfo> encryption,
                                   std::shared_ptr<weights::ByteReader> tensor_bytes,
                                   std::optional<IntegrityInfo> integrity) {
  using namespace engine;
  if (!file) throw Error(codes::kInternal, "no model file");
  const std::string path = file->path();

  const std::optional<std::string> arch_name = file->get_string("general.architecture");
  if (!arch_name) throw Error(codes::kInvalidModel, "missing metadata key general.architecture");
  const ArchSpec* arch = find_arch(*arch_name);
  if (!arch) {
    PrintableStyle style;
    style.max_bytes = 64;
    style.unprintable = Unprintable::kNonAscii;
    const std::string shown = printable(*arch_name, style);
    throw Error(codes::kUnsupportedArch, "unsupported architecture '" + shown + "' (supported: " +
                                             std::string(supported_archs()) + ")");
  }

  // Where the tensor bytes are decides the residencies that work (engine/residency.h): a decrypted
  // or measured image is already resident (and counted in the RSS); stream decryption has no image.
  if (file->header_only() != (tensor_bytes != nullptr)) throw Error(codes::kInternal, "model bytes: bad setup");
  const WeightBytes bytes = tensor_bytes                                   ? WeightBytes::kStreamDecrypted
                            : encryption                                   ? WeightBytes::kDecryptedImage
                            : integrity && integrity->plaintext_image      ? WeightBytes::kMeasuredImage
                                                                           : WeightBytes::kPlainFile;
  const std::string subject = integrity ? integrity->subject : std::string();
  ModelOptions plan_opts = opts;
  plan_opts.weights = residency_for(bytes, opts.weights, subject);
  const uint64_t image_bytes =
      bytes == WeightBytes::kDecryptedImage || bytes == WeightBytes::kMeasuredImage ? file->bytes().size() : 0;
  const uint64_t rss = current_rss_bytes();
  const uint64_t baseline = (rss > image_bytes ? rss - image_bytes : 0) + kBaselineMargin;
  const std::vector<weights::TensorDesc> descs = weights::tensor_descs(*file);
  auto find_desc = [&](const char* name) -> std::optional<int> {
    for (size_t i = 0; i < descs.size(); ++i)
      if (descs[i].name == name) return static_cast<int>(i);
    return std::nullopt;
  };
  const auto embd = find_desc(arch->token_embd);
  if (!embd) throw Error(codes::kInvalidModel, std::string("missing tensor ") + arch->token_embd);
  const int64_t n_vocab = descs[static_cast<size_t>(*embd)].ne[1];
  if (n_vocab <= 0 || n_vocab > (1 << 30)) throw Error(codes::kInvalidModel, "token_embd.weight has no rows");

  HParams hp = read_hparams(*file, *arch, static_cast<int>(n_vocab));
  std::unique_ptr<Tokenizer> tok = Tokenizer::from_gguf(*file);
  if (tok->n_vocab() != hp.n_vocab)
    throw Error(codes::kInvalidModel, "tokenizer vocabulary size " + std::to_string(tok->n_vocab()) +
                                          " differs from token_embd.weight rows " + std::to_string(hp.n_vocab));

  // Residency, batch and context limit under the memory budget.
  const int n_threads = opts.n_threads > 0 ? opts.n_threads : ThreadPool::physical_cores();
  const int output_id = find_desc(arch->output).value_or(*embd);
  // A mapped plaintext file held resident has the matrices the ISA packs packed at load
  // (packed_weights.h), which costs their extra bytes.
  const bool can_pack = bytes == WeightBytes::kPlainFile;
  const uint64_t packed_extra = can_pack ? PackedWeights::extra_bytes(descs, output_id) : 0;
  const MemoryPlan plan = plan_memory(hp, descs, output_id, *embd, plan_opts, n_threads, baseline, packed_extra);
  check_planned_residency(bytes, plan.weights, subject);
  std::unique_ptr<weights::WeightSource> weights;
  if (plan.weights == WeightsMode::Stream) {
    std::vector<uint64_t> offsets;
    for (const gguf::TensorInfo& t : file->tensors()) offsets.push_back(t.file_offset);
    if (!tensor_bytes) tensor_bytes = std::make_shared<weights::FileByteReader>(path);
    weights = std::make_unique<weights::StreamingWeights>(descs, std::move(offsets), std::move(tensor_bytes));
  } else {
    weights = std::make_unique<weights::MappedWeights>(file);
  }
  ModelOptions effective = plan_opts;
  effective.n_batch = plan.n_batch;

  ModelInfo info;
  info.path = path;
  info.weights = plan.weights;
  info.memory_budget = opts.memory_budget;
  info.n_ctx_max = plan.n_ctx_max;
  info.n_batch = plan.n_batch;
  info.name = file->get_string("general.name").value_or(std::filesystem::path(path).stem().string());
  info.architecture = hp.arch;
  info.file_size = file->size();
  for (size_t i = 0; i < descs.size(); ++i) {
    const weights::TensorDesc& d = descs[i];
    if (static_cast<int>(i) == *embd && *embd != output_id) {
      info.decode_bytes += d.row_bytes;
    } else if (d.stacked() && hp.n_expert > 0 && d.ne[2] == hp.n_expert && d.ne[3] == 1) {
      info.decode_bytes += d.plane_bytes() * static_cast<uint64_t>(hp.n_expert_used);
    } else {
      info.decode_bytes += d.size_bytes;
    }
  }
  std::map<TensorType, int64_t> elems_by_type;
  for (const gguf::TensorInfo& t : file->tensors()) {
    info.n_params += static_cast<uint64_t>(t.n_elements());
    if (t.n_dims >= 2) elems_by_type[t.type] += t.n_elements();
  }
  TensorType dominant = TensorType::F32;
  int64_t most = -1;
  for (auto [t, n] : elems_by_type)
    if (n > most) most = n, dominant = t;
  info.file_type = upper(type_name(dominant));
  info.n_vocab = hp.n_vocab;
  info.n_embd = hp.n_embd;
  info.n_layer = hp.n_layer;
  info.n_head = hp.n_head;
  info.n_head_kv = hp.n_head_kv;
  info.n_ff = hp.n_ff;
  info.n_ctx_train = hp.n_ctx_train;
  info.chat_template = file->get_string("tokenizer.chat_template");
  info.encryption = std::move(encryption);
  info.integrity = std::move(integrity);

  const bool pack = can_pack && plan.weights == WeightsMode::Resident;
  return std::make_shared<ModelImpl>(std::move(info), std::move(hp), *arch, std::move(file), std::move(weights),
                                     std::move(tok), effective, pack);
}

}  // namespace a3s::power
