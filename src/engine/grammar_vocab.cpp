#include "engine/grammar_vocab.h"

#include "a3s/power/error.h"
#include "engine/model_impl.h"
#include "tokenizer/tokenizer.h"

namespace a3s::power::engine {

namespace {

std::unique_ptr<grammar::TokenTrie> build(const Tokenizer& tok, int n_vocab, bool control_tokens) {
  std::vector<std::string> pieces(static_cast<size_t>(n_vocab));
  std::vector<uint8_t> excluded(static_cast<size_t>(n_vocab), 0);
  for (Token t = 0; t < n_vocab; ++t) {
    if (tok.is_eog(t)) {
      excluded[static_cast<size_t>(t)] = 1;
      continue;
    }
    pieces[static_cast<size_t>(t)] = tok.token_to_piece(t, control_tokens);
  }
  return std::make_unique<grammar::TokenTrie>(pieces, excluded);
}

}  // namespace

const grammar::TokenTrie& ModelImpl::grammar_vocabulary(bool control_tokens) const {
  std::lock_guard lock(vocab_mu_);
  auto& trie = grammar_vocab_[control_tokens ? 1 : 0];
  if (!trie) trie = build(*tokenizer_, info_.n_vocab, control_tokens);
  return *trie;
}

const grammar::TokenTrie& grammar_vocabulary(const Model& model, bool control_tokens) {
  const auto* impl = dynamic_cast<const ModelImpl*>(&model);
  if (impl == nullptr) throw Error(codes::kInternal, "grammar sampling needs a model loaded by the engine");
  return impl->grammar_vocabulary(control_tokens);
}

}  // namespace a3s::power::engine
