// A chat template rendered by the Jinja interpreter (chat/jinja/template.h) from the GGUF's own
// `tokenizer.chat_template` source: what a model whose template is none of the built-in families
// is served with (ChatTemplate::create, docs/chat-templates.md).
//
// family() and variant() are "jinja". render() gives what transformers.apply_chat_template gives
// (the interpreter's environment, limits and errors are chat/jinja/template.h's);
// render_with_caller_spans() adds the byte spans of the output that came from the caller, so the
// caller's text is tokenized as plain text (runtime/prompt_builder.h).
#pragma once

#include <memory>
#include <string_view>

#include "chat/chat_template.h"

namespace a3s::power::chat {

// Parses `source`. Throws Error(codes::kUnsupportedChatTemplate) "TemplateSyntaxError: … at
// <line>:<col>" when it is not a template the interpreter can run.
std::unique_ptr<ChatTemplate> make_jinja_chat_template(std::string_view source);

}  // namespace a3s::power::chat
