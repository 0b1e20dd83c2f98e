#include "store/model_summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <variant>

#include "model/gguf/gguf_file.h"
#include "model/gguf/tensor_type.h"

namespace a3s::power::store {
namespace {

// A scalar integer metadata value; nullopt when absent, negative, or not a single integer (some
// architectures store per-layer arrays, e.g. head counts).
std::optional<uint64_t> scalar_u64(const gguf::File& file, const std::string& key) {
  const gguf::Value* v = file.find(key);
  if (!v) return std::nullopt;
  if (const auto* u = std::get_if<uint64_t>(&v->v)) return *u;
  if (const auto* i = std::get_if<int64_t>(&v->v); i && *i >= 0) return static_cast<uint64_t>(*i);
  return std::nullopt;
}

}  // namespace

std::string dominant_quantization(const gguf::File& file) {
  const auto& tensors = file.tensors();
  if (tensors.empty()) return {};
  const bool any_matrix =
      std::any_of(tensors.begin(), tensors.end(), [](const gguf::TensorInfo& t) { return t.n_dims >= 2; });
  std::map<uint32_t, uint64_t> elements_by_type;
  for (const auto& t : tensors) {
    if (any_matrix && t.n_dims < 2) continue;
    elements_by_type[static_cast<uint32_t>(t.type)] += static_cast<uint64_t>(t.n_elements());
  }
  uint32_t best = 0;
  uint64_t best_count = 0;
  bool first = true;
  for (const auto& [type, count] : elements_by_type) {  // ascending type id: ties keep the lower id
    if (first || count > best_count) {
      best = type;
      best_count = count;
      first = false;
    }
  }
  std::string name = type_name(static_cast<TensorType>(best));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return name;
}

ModelSummary summarize_model(const gguf::File& file) {
  ModelSummary s;
  if (const gguf::Value* arch = file.find("general.architecture")) {
    if (const auto* str = std::get_if<std::string>(&arch->v)) s.architecture = *str;
  }
  s.quantization = dominant_quantization(file);
  if (!s.architecture.empty()) {
    const std::string a = s.architecture + ".";
    s.n_ctx_train = scalar_u64(file, a + "context_length");
    s.n_embd = scalar_u64(file, a + "embedding_length");
    s.n_layer = scalar_u64(file, a + "block_count");
    s.n_head = scalar_u64(file, a + "attention.head_count");
    s.n_head_kv = scalar_u64(file, a + "attention.head_count_kv");
    s.n_vocab = scalar_u64(file, a + "vocab_size");
  }
  if (const gguf::Value* tokens = file.find("tokenizer.ggml.tokens")) {
    if (const auto* arr = std::get_if<gguf::Array>(&tokens->v)) s.n_vocab = arr->items.size();
  }
  s.has_chat_template = file.has("tokenizer.chat_template");
  s.n_tensors = file.tensors().size();
  for (const auto& t : file.tensors()) s.n_params += static_cast<uint64_t>(t.n_elements());
  return s;
}

ModelSummary summarize_model_file(const std::string& path) {
  return summarize_model(*gguf::File::open(path));
}

}  // namespace a3s::power::store
