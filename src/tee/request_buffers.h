// The per-request plaintext a server holds while it serves one generation request: the prompt text, the
// response text and the token ids. Everything is wiped when the request ends — when the object is
// destroyed or end() is called (docs/tee.md, "Memory"). The KV cache of the request is wiped by the
// serving layer (RuntimeContext::wipe at the end of run_completion, docs/privacy.md), not here.
#pragma once

#include "tee/secure_string.h"

namespace a3s::power::tee {

struct RequestBuffers {
  SecureString prompt;
  SecureString response;
  SecureTokens tokens;

  // Wipes all three buffers now (idempotent; the destructors wipe again, harmlessly).
  void end() noexcept {
    prompt.wipe();
    response.wipe();
    tokens.wipe();
  }
};

}  // namespace a3s::power::tee
