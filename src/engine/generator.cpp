// The generation loop (see generator.h for the contract).
//
// Stop strings: generated text goes into a hold-back buffer. After every token the buffer is
// searched for a complete stop string (→ emit what precedes it, finish Stop); otherwise everything
// except the longest buffer suffix that is a prefix of some stop string is emitted. Any stop string
// that completes later must then lie entirely inside the held-back text, so matches across token
// boundaries are found and stop text is never emitted. Held-back suffixes start where a stop string
// starts, so deltas stay whole UTF-8 characters.
#include "engine/generator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include "a3s/power/error.h"
#include "crypto/secure_memory.h"
#include "engine/grammar_vocab.h"
#include "grammar/matcher.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power {

const char* to_string(FinishReason r) {
  switch (r) {
    case FinishReason::Stop: return "stop";
    case FinishReason::Length: return "length";
    case FinishReason::Cancelled: return "cancelled";
  }
  return "stop";
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

class StopMatcher {
 public:
  explicit StopMatcher(const std::vector<std::string>& stops) {
    for (size_t i = 0; i < stops.size(); ++i)
      if (!stops[i].empty()) stops_.push_back({stops[i], static_cast<int>(i)});
  }

  // Appends text; returns true when a stop string completed (the held text is cut before it).
  bool push(std::string_view text) {
    held_.append(text);
    size_t best = std::string::npos;
    for (size_t i = 0; i < stops_.size(); ++i) {
      const size_t at = held_.find(stops_[i].text);
      if (at < best) {
        best = at;
        matched_ = stops_[i].index;
      }
    }
    if (best != std::string::npos) {
      held_.resize(best);
      return true;
    }
    return false;
  }

  // The index (in the request's stop list) of the stop string that completed, else -1.
  int matched() const { return matched_; }

  // Text that can no longer become part of a stop string (removed from the held buffer).
  std::string take_safe() {
    size_t keep = 0;
    for (const Stop& stop : stops_) {
      const std::string& s = stop.text;
      const size_t max_len = std::min(s.size() - 1, held_.size());
      for (size_t len = max_len; len > keep; --len)
        if (held_.compare(held_.size() - len, len, s, 0, len) == 0) {
          keep = len;
          break;
        }
    }
    std::string out = held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return out;
  }

  // Everything held (used when generation ends without a stop match).
  std::string take_all() {
    std::string out;
    out.swap(held_);
    return out;
  }

 private:
  struct Stop {
    std::string text;
    int index;  // in the request's list
  };
  std::vector<Stop> stops_;
  std::string held_;
  int matched_ = -1;
};

}  // namespace

GenerationResult generate(Context& ctx, const GenerationRequest& req, const DeltaCallback& on_delta) {
  const Model& model = ctx.model();
  const Tokenizer& tok = model.tokenizer();
  const int n_vocab = model.info().n_vocab;
  const int n_prompt = static_cast<int>(req.prompt.size());
  if (n_prompt == 0) throw Error(codes::kInvalidArgument, "generation needs at least one prompt token");
  if (n_prompt > ctx.n_ctx())
    throw Error(codes::kContextLengthExceeded, "prompt of " + std::to_string(n_prompt) +
                                                   " tokens does not fit the context of " +
                                                   std::to_string(ctx.n_ctx()));
  for (Token t : req.prompt)
    if (t < 0 || t >= n_vocab) throw Error(codes::kInvalidArgument, "prompt token id outside the vocabulary");

  GenerationResult res;
  res.n_prompt_tokens = n_prompt;
  Sampler sampler(req.sampling, n_vocab);
  res.seed = sampler.seed();
  for (Token t : req.prompt) sampler.accept(t);
  auto cancelled = [&] { return req.cancel && req.cancel->load(std::memory_order_relaxed); };

  if (req.max_tokens == 0) {
    res.finish = FinishReason::Length;
    return res;
  }
  if (cancelled()) {
    res.finish = FinishReason::Cancelled;
    return res;
  }

  // Prefill: reuse the cached prefix of the prompt, evaluate the rest (at least the last token,
  // whose logits start the generation).
  const auto t_prefill = Clock::now();
  std::span<const Token> cached = ctx.tokens();
  size_t common = 0;
  while (common < cached.size() && common < req.prompt.size() && cached[common] == req.prompt[common]) ++common;
  if (common < cached.size() || common == req.prompt.size()) {
    if (common == req.prompt.size()) --common;
    ctx.truncate(static_cast<int>(common));
  }
  std::span<const float> logits =
      ctx.eval(std::span<const Token>(req.prompt).subspan(common));
  res.prefill_ms = ms_since(t_prefill);

  const auto t_decode = Clock::now();
  res.tokens.reserve(static_cast<size_t>(req.max_tokens > 0 ? std::min(req.max_tokens, ctx.n_ctx())
                                                              : ctx.n_ctx() - ctx.n_past() + 1));
  StreamingDetokenizer detok(tok, req.render_control_tokens);
  StopMatcher stops(req.stop);
  // Log probabilities (req.logprobs >= 0): one reused record, wiped when the generation ends.
  TokenLogprobs lp;
  struct WipeLogprobs {
    TokenLogprobs& lp;
    static void wipe(std::string& s) {
      crypto::wipe(s.data(), s.size());
      s.clear();
    }
    ~WipeLogprobs() {
      wipe(lp.chosen.piece);
      for (auto& e : lp.top) wipe(e.piece);
    }
  } wipe_logprobs{lp};
  const bool want_logprobs = req.logprobs >= 0 && req.on_logprobs;
  auto report_logprobs = [&](Token t) {
    const sampling::LogSoftmax ls(logits);
    auto fill = [&](TokenLogprobs::Entry& e, Token id, float logprob) {
      e.id = id;
      e.logprob = logprob;
      WipeLogprobs::wipe(e.piece);
      e.piece = tok.token_to_piece(id, /*special=*/true);
    };
    fill(lp.chosen, t, ls.logprob(t));
    const auto top = ls.top(req.logprobs);
    for (auto& e : lp.top) WipeLogprobs::wipe(e.piece);
    lp.top.resize(top.size());
    for (size_t i = 0; i < top.size(); ++i) fill(lp.top[i], top[i].id, top[i].logprob);
    req.on_logprobs(lp);
  };
  // Grammar-constrained sampling: the matcher follows the emitted bytes; `masked` is the logits row
  // with what the grammar forbids set to -inf.
  std::optional<grammar::Matcher> matcher;
  const grammar::TokenTrie* trie = nullptr;
  std::vector<uint8_t> allowed;
  std::vector<float> masked;
  if (req.grammar) {
    matcher.emplace(req.grammar);
    trie = &engine::grammar_vocabulary(model, req.render_control_tokens);
    masked.resize(static_cast<size_t>(n_vocab));
  }
  struct WipeMasked {
    std::vector<float>& v;
    ~WipeMasked() { crypto::wipe(v.data(), v.size() * sizeof(float)); }
  } wipe_masked{masked};
  auto deliver = [&](std::string_view text, Token t) {
    res.text.append(text);
    return on_delta ? on_delta(text, t) : true;
  };

  for (;;) {
    if (cancelled()) {
      res.finish = FinishReason::Cancelled;
      break;
    }
    std::span<const float> row = logits;
    if (matcher) {
      grammar::allowed_tokens(*matcher, *trie, allowed);
      const bool can_end = matcher->can_end();
      bool any = can_end;
      for (int i = 0; i < n_vocab; ++i) {
        const bool ok = allowed[static_cast<size_t>(i)] != 0 || (can_end && tok.is_eog(i));
        masked[static_cast<size_t>(i)] = ok ? logits[static_cast<size_t>(i)] : -std::numeric_limits<float>::infinity();
        any = any || ok;
      }
      if (!any) throw Error(codes::kInternal, "no token of the vocabulary continues the grammar");
      row = masked;
    }
    const Token t = sampler.sample(row);
    sampler.accept(t);
    if (matcher && !tok.is_eog(t) && !matcher->accept(tok.token_to_piece(t, req.render_control_tokens))) {
      throw Error(codes::kInternal, "the sampled token does not continue the grammar");
    }
    if (tok.is_eog(t)) {
      res.finish = FinishReason::Stop;
      const bool hit = stops.push(detok.flush());
      (void)hit;  // a completed stop string ends the text the same way the EOG token does
      const std::string rest = stops.take_all();
      if (!rest.empty()) deliver(rest, t);
      break;
    }
    res.tokens.push_back(t);
    if (want_logprobs) report_logprobs(t);
    if (stops.push(detok.push(t))) {
      res.finish = FinishReason::Stop;
      deliver(stops.take_all(), t);
      break;
    }
    const bool max_reached = req.max_tokens > 0 && static_cast<int>(res.tokens.size()) >= req.max_tokens;
    const bool ctx_full = ctx.n_past() >= ctx.n_ctx();
    if (max_reached || ctx_full) {
      res.finish = FinishReason::Length;
      if (stops.push(detok.flush())) res.finish = FinishReason::Stop;
      deliver(stops.take_all(), t);
      break;
    }
    if (matcher && matcher->finished()) {  // the grammar admits nothing more: the output is complete
      res.finish = FinishReason::Stop;
      stops.push(detok.flush());
      deliver(stops.take_all(), t);
      break;
    }
    if (!deliver(stops.take_safe(), t)) {
      res.finish = FinishReason::Cancelled;
      break;
    }
    const Token next[1] = {t};
    logits = ctx.eval(next);
  }
  res.decode_ms = ms_since(t_decode);
  if (res.finish == FinishReason::Stop) res.stop_index = stops.matched();
  return res;
}

}  // namespace a3s::power
