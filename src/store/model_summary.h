// What the store records and `a3s-power show` prints about a GGUF model, read from its metadata
// (key names from `docs/gguf.md` in ggml-org/ggml: general.architecture, <arch>.context_length,
// <arch>.embedding_length, <arch>.block_count, <arch>.attention.head_count[_kv], tokenizer.ggml.tokens,
// tokenizer.chat_template).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace a3s::power::gguf {
class File;
}

namespace a3s::power::store {

struct ModelSummary {
  std::string architecture;             // general.architecture ("" when absent)
  std::string quantization;             // dominant weight type, uppercase ggml name ("Q4_K", "F32")
  std::optional<uint64_t> n_ctx_train;  // tokens
  std::optional<uint64_t> n_embd;
  std::optional<uint64_t> n_layer;
  std::optional<uint64_t> n_head;
  std::optional<uint64_t> n_head_kv;
  std::optional<uint64_t> n_vocab;  // entries of tokenizer.ggml.tokens, else <arch>.vocab_size
  uint64_t n_params = 0;            // total elements over all tensors
  uint64_t n_tensors = 0;
  bool has_chat_template = false;
};

// Dominant tensor type: the type holding the most elements among matrices (tensors with two or
// more dimensions; every tensor when there is none), as an uppercase ggml type name; "" when the
// file has no tensors. Ties go to the lower type id.
std::string dominant_quantization(const gguf::File& file);

// Never throws for odd metadata: a key with an unexpected type is reported as absent.
ModelSummary summarize_model(const gguf::File& file);

// Opens `path` as GGUF and summarizes it; throws the reader's Error ("io_error", "invalid_model",
// "unsupported_tensor_type").
ModelSummary summarize_model_file(const std::string& path);

}  // namespace a3s::power::store
