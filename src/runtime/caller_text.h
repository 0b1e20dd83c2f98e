// The caller's strings in a conversation (content, names, tool-call ids, tool calls, extra keys):
// wiped when a request ends, and quoted before a chat template renders them.
#pragma once

#include "a3s/power/engine.h"
#include "chat/messages.h"

namespace a3s::power::runtime {

// Zeroes every string of the messages (privacy/wipe_text.h) and leaves them empty.
void wipe_messages(chat::Messages& messages) noexcept;

// A copy of `messages` with every caller string passed through Tokenizer::quote — JSON string values
// and object keys of tool calls and extra keys included — so that the template's markup is the only
// source of control tokens (tokenizer/quoted_text.h). The caller wipes the copy.
chat::Messages quoted_messages(const chat::Messages& messages, const Tokenizer& tokenizer);

// A copy of a JSON value with every string value and object key passed through Tokenizer::quote
// (the request's `tools`, tool calls). The caller wipes the copy.
nlohmann::ordered_json quoted_json(const nlohmann::ordered_json& j, const Tokenizer& tokenizer);

}  // namespace a3s::power::runtime
