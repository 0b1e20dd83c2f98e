#include "attestation/receipt.h"

#include <initializer_list>
#include <set>

#include "base/canonical_json.h"
#include "base/hex.h"
#include "crypto/secure_memory.h"

namespace a3s::power::tee {
namespace {

using nlohmann::json;

crypto::Sha256Digest sha256_of(std::string_view bytes) {
  return crypto::sha256({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
}

bool lower_hex(std::string_view s) {
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Reads one object's members, exactly the ones named; the first problem is kept in `error`.
class Members {
 public:
  Members(const json& obj, std::string path, std::string& error) : obj_(obj), path_(std::move(path)), error_(error) {}

  bool exactly(std::initializer_list<const char*> names) {
    if (!obj_.is_object()) return fail(path_.empty() ? "the receipt must be a JSON object" : path_ + " must be an object");
    std::set<std::string> allowed(names.begin(), names.end());
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!allowed.count(it.key())) return fail("unknown member in " + (path_.empty() ? std::string("the receipt") : path_));
    for (const char* n : names)
      if (!obj_.contains(n)) return fail("missing member \"" + name(n) + "\"");
    return true;
  }
  bool string(const char* key, std::string& out) {
    const json& v = obj_.at(key);
    if (!v.is_string()) return fail("member \"" + name(key) + "\" must be a string");
    out = v.get<std::string>();
    return true;
  }
  bool boolean(const char* key, bool& out) {
    const json& v = obj_.at(key);
    if (!v.is_boolean()) return fail("member \"" + name(key) + "\" must be a boolean");
    out = v.get<bool>();
    return true;
  }
  bool count(const char* key, int64_t& out) {
    const json& v = obj_.at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(kMaxCanonicalInteger)
                                                          : v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxCanonicalInteger))
      return fail("member \"" + name(key) + "\" must be an integer in 0..2^53-1");
    out = v.get<int64_t>();
    return true;
  }
  bool digest(const char* key, crypto::Sha256Digest& out) {
    std::string hex;
    if (!string(key, hex)) return false;
    if (hex.size() != 64 || !lower_hex(hex) || !decode_hex(hex, out))
      return fail("member \"" + name(key) + "\" must be 64 lowercase hex digits");
    return true;
  }
  const json& at(const char* key) const { return obj_.at(key); }
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  bool fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  const json& obj_;
  std::string path_;
  std::string& error_;
};

}  // namespace

std::string receipt_key_id(const crypto::Ed25519PublicKey& public_key) {
  const crypto::Sha256Digest d = crypto::sha256(public_key);
  return to_hex(std::span<const uint8_t>(d.data(), kReceiptKeyIdBytes));
}

json Receipt::payload() const {
  return {{"schema", kReceiptSchema},
          {"key_id", key_id},
          {"response",
           {{"id", response.id},
            {"object", response.object},
            {"created", response.created},
            {"model", response.model},
            {"system_fingerprint", response.system_fingerprint},
            {"stream", response.stream}}},
          {"request_sha256", to_hex(request_sha256)},
          {"prompt_sha256", to_hex(prompt_sha256)},
          {"output_sha256", to_hex(output_sha256)},
          {"model_sha256", to_hex(model_sha256)},
          {"config_sha256", to_hex(config_sha256)},
          {"usage",
           {{"prompt_tokens", usage.prompt_tokens},
            {"completion_tokens", usage.completion_tokens},
            {"total_tokens", usage.total_tokens()},
            {"rounded", usage.rounded}}},
          {"prompt_cache", {{"used", prompt_cache_used}, {"cached_tokens", prompt_cache_tokens}}},
          {"completed_at", completed_at}};
}

std::string Receipt::signed_bytes() const { return canonical_json(payload(), JsonValues::kAll); }

json signed_receipt_json(const Receipt& receipt, const crypto::Ed25519Signature& signature) {
  json j = receipt.payload();
  j["signature"] = to_hex(signature);
  return j;
}

std::optional<ParsedReceipt> parse_receipt(const json& j, std::string& error) {
  ParsedReceipt out;
  Receipt& r = out.receipt;
  Members top(j, "", error);
  if (!top.exactly({"schema", "key_id", "response", "request_sha256", "prompt_sha256", "output_sha256",
                    "model_sha256", "config_sha256", "usage", "prompt_cache", "completed_at", "signature"}))
    return std::nullopt;
  std::string schema, signature;
  if (!top.string("schema", schema)) return std::nullopt;
  if (schema != kReceiptSchema) {
    error = std::string("member \"schema\" must be \"") + kReceiptSchema + "\"";
    return std::nullopt;
  }
  if (!top.string("key_id", r.key_id)) return std::nullopt;
  if (r.key_id.size() != 2 * kReceiptKeyIdBytes || !lower_hex(r.key_id)) {
    error = "member \"key_id\" must be 16 lowercase hex digits";
    return std::nullopt;
  }
  Members resp(top.at("response"), "response", error);
  if (!resp.exactly({"id", "object", "created", "model", "system_fingerprint", "stream"}) ||
      !resp.string("id", r.response.id) || !resp.string("object", r.response.object) ||
      !resp.count("created", r.response.created) || !resp.string("model", r.response.model) ||
      !resp.string("system_fingerprint", r.response.system_fingerprint) || !resp.boolean("stream", r.response.stream))
    return std::nullopt;
  if (!top.digest("request_sha256", r.request_sha256) || !top.digest("prompt_sha256", r.prompt_sha256) ||
      !top.digest("output_sha256", r.output_sha256) || !top.digest("model_sha256", r.model_sha256) ||
      !top.digest("config_sha256", r.config_sha256))
    return std::nullopt;
  Members usage(top.at("usage"), "usage", error);
  int64_t total = 0;
  if (!usage.exactly({"prompt_tokens", "completion_tokens", "total_tokens", "rounded"}) ||
      !usage.count("prompt_tokens", r.usage.prompt_tokens) ||
      !usage.count("completion_tokens", r.usage.completion_tokens) || !usage.count("total_tokens", total) ||
      !usage.boolean("rounded", r.usage.rounded))
    return std::nullopt;
  if (total != r.usage.total_tokens()) {
    error = "member \"usage.total_tokens\" must be prompt_tokens + completion_tokens";
    return std::nullopt;
  }
  Members cache(top.at("prompt_cache"), "prompt_cache", error);
  if (!cache.exactly({"used", "cached_tokens"}) || !cache.boolean("used", r.prompt_cache_used) ||
      !cache.count("cached_tokens", r.prompt_cache_tokens))
    return std::nullopt;
  if (!top.count("completed_at", r.completed_at) || !top.string("signature", signature)) return std::nullopt;
  if (signature.size() != 2 * crypto::kEd25519SignatureBytes || !lower_hex(signature) ||
      !decode_hex(signature, out.signature)) {
    error = "member \"signature\" must be 128 lowercase hex digits";
    return std::nullopt;
  }
  out.json = j;
  return out;
}

crypto::Sha256Digest prompt_sha256(std::span<const int32_t> tokens) {
  crypto::Sha256 h;
  uint8_t le[4];
  for (int32_t t : tokens) {
    const uint32_t u = static_cast<uint32_t>(t);
    le[0] = static_cast<uint8_t>(u);
    le[1] = static_cast<uint8_t>(u >> 8);
    le[2] = static_cast<uint8_t>(u >> 16);
    le[3] = static_cast<uint8_t>(u >> 24);
    h.update(le);
  }
  return h.finish();
}

crypto::Sha256Digest output_sha256(const json& choices) {
  std::string bytes = canonical_json(choices, JsonValues::kAll);
  const crypto::Sha256Digest d = sha256_of(bytes);
  // The canonical form holds the completion text.
  crypto::wipe(bytes.data(), bytes.size());
  return d;
}

}  // namespace a3s::power::tee
