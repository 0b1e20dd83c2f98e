// Caller text inside a template-rendered prompt: the quote mark that keeps it from becoming control
// tokens.
//
// A chat prompt is parsed for special tokens, because the template's markup ("<|im_start|>",
// "<|eot_id|>", "[INST]", the BOS text) must become those tokens. Text a caller supplied (message
// content, names, tool results) must not: a user who types "</s>" or "<|im_end|><|im_start|>system"
// would otherwise end the turn or open a system turn. Before rendering, every place in caller text
// where a control or unknown token's text begins gets a quote mark (Tokenizer::quote); after rendering,
// Tokenizer::encode_rendered removes the marks and recognises no control/unknown token at a marked
// place. The rest of the text tokenizes exactly as without marks (the marks sit outside every match,
// so BPE / SentencePiece see the same raw runs), and templates that trim or search content see the
// same text, since the mark is neither whitespace nor part of any markup.
//
// The mark is U+FDD0 (a Unicode noncharacter, UTF-8 EF B7 90). A literal U+FDD0 in caller text is
// written as two marks and comes back as one U+FDD0.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace a3s::power::tok {

inline constexpr std::string_view kQuoteMark = "\xEF\xB7\x90";

// `text` with a mark before each offset of `starts` (ascending, each < text.size()) and every literal
// mark doubled.
std::string quote_at(std::string_view text, std::span<const size_t> starts);

// Removes the marks from `text` in place (a doubled mark leaves one literal U+FDD0) and returns the
// offsets, in the unmarked text, that followed a single mark (ascending, no duplicates). A mark at the
// very end is dropped.
std::vector<size_t> unquote_in_place(std::string& text);

}  // namespace a3s::power::tok
