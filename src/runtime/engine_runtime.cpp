#include "runtime/engine_runtime.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "a3s/power/error.h"
#include "chat/chat_template.h"
#include "engine/embedding.h"
#include "engine/load.h"
#include "privacy/wipe_text.h"
#include "runtime/prompt_builder.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::runtime {
namespace {

class EngineContext final : public RuntimeContext {
 public:
  EngineContext(std::shared_ptr<const Model> model, int n_ctx) : ctx_(std::move(model), {.n_ctx = n_ctx}) {}
  int n_ctx() const override { return ctx_.n_ctx(); }
  void wipe() override { ctx_.wipe(); }
  Context& ctx() { return ctx_; }

 private:
  Context ctx_;
};

// "fp_" + 12 hex digits of SHA-256(version, architecture, file type, size, name): changes when the
// served model file or the server version changes.
std::string fingerprint_for(const ModelInfo& info) {
  std::string material = std::string("a3s-power/") + A3S_POWER_VERSION_STRING + "|" + info.architecture + "|" +
                         info.file_type + "|" + std::to_string(info.file_size) + "|" +
                         std::to_string(info.n_params);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(material.data(), material.size(), md, &len, EVP_sha256(), nullptr);
  std::string out = "fp_";
  char hex[3];
  for (unsigned i = 0; i < 6 && i < len; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", md[i]);
    out += hex;
  }
  return out;
}

std::string random_instance_id() {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) throw Error(codes::kInternal, "no random model instance id");
  std::string out;
  char hex[3];
  for (unsigned char c : b) {
    std::snprintf(hex, sizeof hex, "%02x", c);
    out += hex;
  }
  return out;
}

weights::IntegrityOptions named(weights::IntegrityOptions o, const std::string& name) {
  o.model_name = name;
  return o;
}

// The chat template a model is served with: the configured file's text, else the GGUF's own.
std::optional<std::string> chat_template_source(const ModelInfo& info, const EngineRuntimeOptions& opts) {
  if (!opts.chat_template.empty()) return opts.chat_template;
  return info.chat_template;
}

class EngineRuntime final : public ModelRuntime {
 public:
  EngineRuntime(const std::string& name, const std::string& path, const EngineRuntimeOptions& opts)
      : model_(load_model(path, LoadOptions{.model = {.n_threads = opts.n_threads,
                                                      .n_batch = opts.n_batch,
                                                      .weights = opts.weights,
                                                      .memory_budget = opts.memory_budget,
                                                      .kv_cache_bytes = opts.kv_cache_bytes},
                                            .decrypt = opts.decrypt,
                                            .integrity = named(opts.integrity, name)})),
        n_ctx_option_(opts.n_ctx) {
    const ModelInfo& info = model_->info();
    if (n_ctx_option_ == 0 && info.n_ctx_max > 0 && opts.n_parallel > 1) {
      // The budget's context is shared by every slot (each slot has its own KV cache).
      n_ctx_option_ = std::max(32, info.n_ctx_max / opts.n_parallel / 32 * 32);
      n_ctx_option_ = std::min({n_ctx_option_, info.n_ctx_max, info.n_ctx_train > 0 ? info.n_ctx_train : 4096});
    }
    try {
      template_ = chat::ChatTemplate::create(chat_template_source(info, opts), opts.chat_template_fallback);
    } catch (const Error& e) {
      template_error_.emplace(e);
    }
    // A reasoning model's template marks the thinking (it strips "</think>" blocks from the history).
    const std::optional<std::string> source = chat_template_source(info, opts);
    reasoning_ = template_ && source && source->find("</think>") != std::string::npos;
    if (template_ && source) tool_syntax_ = chat::tool_call_syntax_of(*source);
    // Probe the effective context size once (a Context resolves 0 → model default).
    Context probe(model_, {.n_ctx = n_ctx_option_});
    desc_.name = name;
    desc_.path = path;
    desc_.architecture = info.architecture;
    desc_.file_type = info.file_type;
    desc_.file_size = info.file_size;
    desc_.n_params = info.n_params;
    desc_.n_ctx = probe.n_ctx();
    desc_.n_ctx_train = info.n_ctx_train;
    desc_.weights = std::string(to_string(info.weights));
    desc_.memory_budget = info.memory_budget;
    desc_.n_vocab = info.n_vocab;
    desc_.n_embd = info.n_embd;
    desc_.chat_template = template_ ? template_->family() : "unsupported";
    desc_.system_fingerprint = fingerprint_for(info);
    if (info.integrity) {
      desc_.sha256 = info.integrity->sha256;
      if (info.integrity->signature_verified) desc_.signature = "verified";
    }
    if (info.encryption) desc_.encrypted_sha256 = info.encryption->ciphertext_sha256;
    desc_.instance_id = random_instance_id();
  }

  const ModelDescription& description() const override { return desc_; }

  std::vector<Token> chat_prompt(const chat::Messages& messages, const ChatPromptOptions& options) const override {
    if (!template_) throw *template_error_;
    return PromptBuilder(model_->tokenizer(), *template_).chat(messages, options);
  }

  chat::ToolCallSyntax tool_call_syntax() const override { return tool_syntax_; }

  chat::ReasoningStart reasoning_start(std::span<const Token> prompt) const override {
    if (!reasoning_) return chat::ReasoningStart::kNone;
    // The prompt's last few tokens as text: does the generation prompt leave a "<think>" open?
    const size_t tail = std::min<size_t>(prompt.size(), 16);  // at least the 8 bytes of "<think>\n"
    std::string text = model_->tokenizer().decode(prompt.subspan(prompt.size() - tail), /*special=*/true);
    std::string_view t = text;
    while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) t.remove_suffix(1);
    const bool inside = t.size() >= 7 && t.substr(t.size() - 7) == "<think>";
    privacy::wipe_string(text);
    return inside ? chat::ReasoningStart::kInside : chat::ReasoningStart::kOutside;
  }

  std::vector<Token> infill_prompt(const std::string& prefix, const std::string& suffix) const override {
    return runtime::infill_prompt(model_->tokenizer(), prefix, suffix);
  }

  std::vector<Token> text_prompt(const std::string& text) const override {
    return runtime::text_prompt(model_->tokenizer(), text);
  }

  std::vector<Token> embedding_tokens(const std::string& text) const override {
    return model_->tokenizer().encode(text, /*add_special=*/true, /*parse_special=*/false);
  }

  std::vector<float> embed(RuntimeContext& rc, std::span<const Token> tokens) const override {
    return a3s::power::embed(dynamic_cast<EngineContext&>(rc).ctx(), tokens);
  }

  std::unique_ptr<RuntimeContext> new_context() const override {
    return std::make_unique<EngineContext>(model_, desc_.n_ctx);
  }

  GenerationResult generate(RuntimeContext& rc, const GenerationRequest& req,
                            const DeltaCallback& on_delta) const override {
    auto& ec = dynamic_cast<EngineContext&>(rc);
    // A context holds nothing (wiped when the last request ended) or a restored prefix of req.prompt;
    // generate() evaluates whatever of the prompt it does not hold.
    return a3s::power::generate(ec.ctx(), req, on_delta);
  }

  bool reserve_kv(RuntimeContext& rc, int n_tokens, std::chrono::steady_clock::time_point deadline,
                  const std::atomic<bool>* cancel) const override {
    return dynamic_cast<EngineContext&>(rc).ctx().reserve(n_tokens, deadline, cancel);
  }
  KvCacheStats kv_cache_stats() const override { return model_->kv_cache_stats(); }

  bool supports_prefix_snapshots() const override { return true; }
  std::shared_ptr<const KvSnapshot> snapshot_prefix(RuntimeContext& rc, int n) const override {
    return dynamic_cast<EngineContext&>(rc).ctx().snapshot(n);
  }
  void restore_prefix(RuntimeContext& rc, const KvSnapshot& snap, int n) const override {
    dynamic_cast<EngineContext&>(rc).ctx().restore(snap, n);
  }

 private:
  std::shared_ptr<Model> model_;
  int n_ctx_option_;
  std::unique_ptr<chat::ChatTemplate> template_;
  std::optional<Error> template_error_;
  bool reasoning_ = false;  // reasoning_start() splits "<think>" blocks
  chat::ToolCallSyntax tool_syntax_ = chat::ToolCallSyntax::kNone;
  ModelDescription desc_;
};

}  // namespace

std::shared_ptr<ModelRuntime> load_engine_runtime(const std::string& name, const std::string& path,
                                                  const EngineRuntimeOptions& opts) {
  return std::make_shared<EngineRuntime>(name, path, opts);
}

}  // namespace a3s::power::runtime
