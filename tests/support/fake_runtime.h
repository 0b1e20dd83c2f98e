// A deterministic stand-in for the engine behind runtime::ModelRuntime: one token per byte, a
// scripted output, optional per-token delay and a gate that holds generations until opened.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "a3s/power/error.h"
#include "runtime/model_runtime.h"

namespace a3s::power::testing {

// Holds generations at their start until opened (or the generation is cancelled).
class Gate {
 public:
  void open() {
    std::lock_guard lk(mu_);
    open_ = true;
    cv_.notify_all();
  }
  // Returns false when cancelled while waiting.
  bool wait(const std::atomic<bool>* cancel) {
    std::unique_lock lk(mu_);
    ++waiting_;
    cv_.notify_all();
    while (!open_) {
      if (cancel && cancel->load()) {
        --waiting_;
        return false;
      }
      cv_.wait_for(lk, std::chrono::milliseconds(5));
    }
    --waiting_;
    return true;
  }
  // Blocks until `n` generations wait at the gate.
  void await_waiting(int n) {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
  int waiting_ = 0;
};

struct FakeStats {
  std::atomic<int> generations{0};
  std::atomic<int> cancelled{0};
  std::atomic<int> running{0};
  std::atomic<int> max_running{0};
  std::atomic<int> contexts_created{0};
  std::atomic<int> contexts_wiped{0};  // RuntimeContext::wipe() calls (one per finished request)
};

struct FakeOptions {
  std::string output = "Hello world, this is a fake model speaking.";
  int n_ctx = 64;
  std::chrono::milliseconds per_token{0};
  std::shared_ptr<Gate> gate;
  std::shared_ptr<FakeStats> stats = std::make_shared<FakeStats>();
  chat::ReasoningStart reasoning = chat::ReasoningStart::kNone;  // what reasoning_start() says
  chat::ToolCallSyntax tool_syntax = chat::ToolCallSyntax::kNone;  // what tool_call_syntax() says
  std::string sha256;  // the description's plaintext digest (64 hex): a measured model, as TEE mode needs
};

class FakeContext final : public runtime::RuntimeContext {
 public:
  FakeContext(int n, std::shared_ptr<FakeStats> stats) : n_(n), stats_(std::move(stats)) {}
  int n_ctx() const override { return n_; }
  void wipe() override { ++stats_->contexts_wiped; }

 private:
  int n_;
  std::shared_ptr<FakeStats> stats_;
};

class FakeRuntime final : public runtime::ModelRuntime {
 public:
  FakeRuntime(const std::string& name, FakeOptions opts) : opts_(std::move(opts)) {
    desc_.name = name;
    desc_.path = "/fake/" + name + ".gguf";
    desc_.architecture = "fake";
    desc_.sha256 = opts_.sha256;
    desc_.file_type = "F32";
    desc_.n_ctx = opts_.n_ctx;
    desc_.n_ctx_train = opts_.n_ctx;
    desc_.n_vocab = 259;
    desc_.chat_template = "plain";
    desc_.system_fingerprint = "fp_fake";
  }

  const runtime::ModelDescription& description() const override { return desc_; }

  std::vector<Token> chat_prompt(const chat::Messages& messages,
                                 const runtime::ChatPromptOptions& /*options*/) const override {
    std::string text;
    for (const auto& m : messages) {
      const std::string content = m.content.value_or("");
      if (m.role == chat::Role::kSystem && content == "reject me") {
        throw Error(codes::kInvalidRequest, "the template rejects this conversation");
      }
      text += std::string(chat::role_name(m.role)) + ": " + content + "\n";
    }
    text += "assistant:";
    return text_prompt(text);
  }

  chat::ReasoningStart reasoning_start(std::span<const Token>) const override { return opts_.reasoning; }
  chat::ToolCallSyntax tool_call_syntax() const override { return opts_.tool_syntax; }

  std::vector<Token> text_prompt(const std::string& text) const override {
    std::vector<Token> t{1};  // BOS
    for (unsigned char c : text) t.push_back(static_cast<Token>(c) + 3);
    return t;
  }

  std::unique_ptr<runtime::RuntimeContext> new_context() const override {
    ++opts_.stats->contexts_created;
    return std::make_unique<FakeContext>(opts_.n_ctx, opts_.stats);
  }

  GenerationResult generate(runtime::RuntimeContext& ctx, const GenerationRequest& req,
                            const DeltaCallback& on_delta) const override {
    FakeStats& st = *opts_.stats;
    ++st.generations;
    int now = ++st.running;
    int prev = st.max_running.load();
    while (now > prev && !st.max_running.compare_exchange_weak(prev, now)) {
    }
    struct Leave {
      FakeStats& s;
      ~Leave() { --s.running; }
    } leave{st};

    GenerationResult r;
    r.n_prompt_tokens = static_cast<int>(req.prompt.size());
    if (r.n_prompt_tokens >= ctx.n_ctx()) throw Error(codes::kContextLengthExceeded, "prompt too long");
    if (opts_.gate && !opts_.gate->wait(req.cancel)) {
      ++st.cancelled;
      r.finish = FinishReason::Cancelled;
      return r;
    }
    int limit = req.max_tokens < 0 ? ctx.n_ctx() - r.n_prompt_tokens
                                    : std::min(req.max_tokens, ctx.n_ctx() - r.n_prompt_tokens);
    std::string produced;   // all generated text
    size_t emitted = 0;     // bytes of `produced` already delivered
    r.finish = FinishReason::Stop;
    for (size_t i = 0;; ++i) {
      if (req.cancel && req.cancel->load()) {
        ++st.cancelled;
        r.finish = FinishReason::Cancelled;
        break;
      }
      if (i >= opts_.output.size()) break;  // "EOG"
      if (static_cast<int>(r.tokens.size()) >= limit) {
        r.finish = FinishReason::Length;
        break;
      }
      if (opts_.per_token.count() > 0) std::this_thread::sleep_for(opts_.per_token);
      r.tokens.push_back(static_cast<Token>(static_cast<unsigned char>(opts_.output[i])) + 3);
      produced += opts_.output[i];
      // Stop strings: cut at the first match; hold back a suffix that may start one.
      size_t cut = std::string::npos;
      for (size_t k = 0; k < req.stop.size(); ++k) {
        const size_t at = produced.find(req.stop[k]);
        if (at < cut) {
          cut = at;
          r.stop_index = static_cast<int>(k);
        }
      }
      if (cut != std::string::npos) {
        produced.resize(cut);
        if (produced.size() > emitted && !on_delta(std::string_view(produced).substr(emitted), r.tokens.back())) {
          r.finish = FinishReason::Cancelled;
        }
        emitted = produced.size();
        if (r.finish != FinishReason::Cancelled) r.finish = FinishReason::Stop;
        r.text = produced;
        return r;
      }
      size_t hold = 0;
      for (const auto& s : req.stop) {
        for (size_t k = std::min(s.size() - 1, produced.size()); k > hold; --k) {
          if (produced.compare(produced.size() - k, k, s, 0, k) == 0) {
            hold = k;
            break;
          }
        }
      }
      size_t safe = produced.size() - hold;
      std::string_view delta = safe > emitted ? std::string_view(produced).substr(emitted, safe - emitted) : "";
      emitted = std::max(emitted, safe);
      if (!on_delta(delta, r.tokens.back())) {
        ++st.cancelled;
        r.finish = FinishReason::Cancelled;
        break;
      }
    }
    if (r.finish != FinishReason::Cancelled && emitted < produced.size()) {
      on_delta(std::string_view(produced).substr(emitted), r.tokens.empty() ? 0 : r.tokens.back());
      emitted = produced.size();
    }
    r.text = produced.substr(0, emitted);
    return r;
  }

 private:
  FakeOptions opts_;
  runtime::ModelDescription desc_;
};

}  // namespace a3s::power::testing
