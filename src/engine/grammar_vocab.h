// A model's vocabulary as grammar-constrained sampling sees it (grammar/token_mask.h): each token's
// bytes as the generation loop emits them. Built on first use for each of the two renderings and kept
// with the model (a 150k-token vocabulary takes a few megabytes).
//
//   control_tokens false  control tokens emit nothing, so no grammar can produce them;
//   control_tokens true   control tokens other than end-of-generation ones emit their text
//                         (GenerationRequest::render_control_tokens), and a grammar may produce them.
// End-of-generation tokens are never in the trie: the loop allows them when the grammar can end.
// Thread-safe. Throws Error(codes::kInternal) for a Model the engine did not load.
#pragma once

#include "a3s/power/engine.h"
#include "grammar/token_mask.h"

namespace a3s::power::engine {

const grammar::TokenTrie& grammar_vocabulary(const Model& model, bool control_tokens);

}  // namespace a3s::power::engine
