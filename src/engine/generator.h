// The generation loop: prompt tokens in, text deltas out.
//
// Prefills the prompt, then samples and decodes one token at a time until: an end-of-generation
// token (any of the tokenizer's EOG set; not emitted as text) → Stop; a stop string completes →
// Stop (the stop text and anything after it is never emitted); max_tokens generated or the context
// full → Length; `on_delta` returned false or `cancel` became true → Cancelled (checked once per
// decode step). Text deltas are whole UTF-8 characters; text that might be the start of a stop
// string is held back until it is known not to be.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "a3s/power/engine.h"
#include "grammar/grammar.h"
#include "sampling/logprobs.h"
#include "sampling/sampler.h"

namespace a3s::power {

enum class FinishReason { Stop, Length, Cancelled };
const char* to_string(FinishReason r);  // "stop", "length", "cancelled"

// One generated token's log probabilities (sampling/logprobs.h: the log-softmax of the model's raw
// logits for the step that produced it, before any sampling setting).
struct TokenLogprobs {
  struct Entry {
    Token id = 0;
    float logprob = 0.0f;  // natural log; -inf for a token that could not be drawn
    std::string piece;     // the token's bytes (a control token's text); may be partial UTF-8
  };
  Entry chosen;
  std::vector<Entry> top;  // the GenerationRequest::logprobs most probable tokens, best first
};
// Called once per generated token (never for the end-of-generation token), before the delta that
// carries the token's text. The object is reused: copy what you keep.
using LogprobsCallback = std::function<void(const TokenLogprobs&)>;

struct GenerationRequest {
  std::vector<Token> prompt;          // already tokenized (BOS included if wanted)
  SamplingParams sampling;
  int max_tokens = -1;                // < 0: until the context is full
  std::vector<std::string> stop;      // stop strings (matched on the generated text)
  const std::atomic<bool>* cancel = nullptr;
  // < 0: no log probabilities. 0..sampling::kMaxTopLogprobs: on_logprobs gets each generated
  // token's log probability and this many alternatives (larger values are clamped).
  int logprobs = -1;
  LogprobsCallback on_logprobs;
  // Control tokens other than end-of-generation ones are emitted as their text (e.g. "[TOOL_CALLS]",
  // "<|python_tag|>"), for a caller that parses tool calls (chat/tool_calls.h); otherwise as nothing.
  bool render_control_tokens = false;
  // Grammar-constrained sampling (docs/grammar.md): when set, each token is drawn from the logits
  // with every token the grammar cannot take next masked out (the sampling chain then runs on what
  // is left), and end-of-generation tokens are allowed only where the grammar can end. Generation
  // stops (Stop) as soon as the grammar admits no further byte. Log probabilities stay those of the
  // model's raw logits.
  std::shared_ptr<const grammar::Grammar> grammar;
};

struct GenerationResult {
  std::vector<Token> tokens;          // generated tokens (EOG token excluded)
  std::string text;                   // emitted text (stop string excluded)
  FinishReason finish = FinishReason::Stop;
  int n_prompt_tokens = 0;
  uint64_t seed = 0;                  // the seed actually used
  int stop_index = -1;                // finish Stop by a stop string: its index in req.stop; else -1
  double prefill_ms = 0, decode_ms = 0;
};

// Called for each emitted text delta (may be empty text when a token produced no complete
// character yet; `token` is the token just generated). Return false to cancel.
using DeltaCallback = std::function<bool(std::string_view text, Token token)>;

// Runs a generation on `ctx`, which must be fresh (n_past()==0) or hold a prefix of req.prompt
// (only the remaining tokens are evaluated). Throws Error(codes::kContextLengthExceeded) when the
// prompt alone does not fit in the context, and the grammar matcher's
// Error(codes::kResourceExhausted) for a grammar too ambiguous to follow.
GenerationResult generate(Context& ctx, const GenerationRequest& req, const DeltaCallback& on_delta = {});

}  // namespace a3s::power
