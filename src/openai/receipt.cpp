#include "openai/receipt.h"

#include <ctime>

#include "attestation/receipt.h"
#include "privacy/wipe_text.h"

namespace a3s::power::openai {

nlohmann::json make_receipt(const tee::Attestor& attestor, const ResponseMeta& meta,
                            std::span<const ChoiceOutput> choices, const ReceiptFacts& facts) {
  tee::Receipt rc;
  rc.response.id = meta.id;
  rc.response.object = facts.chat ? (facts.stream ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  rc.response.created = meta.created;
  rc.response.model = meta.model;
  rc.response.system_fingerprint = meta.system_fingerprint;
  rc.response.stream = facts.stream;
  rc.request_sha256 = facts.request_sha256;
  rc.prompt_sha256 = facts.prompt_sha256;
  rc.model_sha256 = facts.model_sha256;
  rc.usage.prompt_tokens = facts.usage.prompt_tokens;
  rc.usage.completion_tokens = facts.usage.completion_tokens;
  rc.usage.rounded = facts.usage_rounded;
  rc.prompt_cache_used = facts.prompt_cache_used;
  rc.prompt_cache_tokens = facts.usage.cached_tokens;
  rc.completed_at = static_cast<int64_t>(std::time(nullptr));
  {
    nlohmann::json doc = facts.chat ? chat_completion(meta, choices, facts.usage) : text_completion(meta, choices, facts.usage);
    nlohmann::json shown = nlohmann::json::parse(json_text(doc["choices"]));
    privacy::wipe_json(doc);
    try {
      rc.output_sha256 = tee::output_sha256(shown);
    } catch (...) {
      privacy::wipe_json(shown);
      throw;
    }
    privacy::wipe_json(shown);
  }
  return attestor.sign_receipt(std::move(rc));
}

}  // namespace a3s::power::openai
