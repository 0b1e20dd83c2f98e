#include "verify/online/endorsement_cache.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <system_error>

#include "a3s/power/error.h"
#include "base/atomic_write.h"
#include "base/hex.h"

namespace a3s::power::verify::online {
namespace {

constexpr std::uintmax_t kMaxEntryBytes = 16u << 20;

std::optional<std::string> read_all(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || ec) return std::nullopt;
  if (std::filesystem::file_size(path, ec) > kMaxEntryBytes || ec) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
}

// A cache entry is best effort: a failed write is reported as false, never thrown.
bool write_atomically(const std::filesystem::path& path, const std::string& bytes) {
  try {
    write_file_atomically(path.string(), bytes, 0644);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::string EndorsementCache::key(const std::string& url) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(url.data(), url.size(), digest, &len, EVP_sha256(), nullptr);
  return to_hex(std::span<const uint8_t>(digest, len));
}

std::optional<CachedResponse> EndorsementCache::lookup(const std::string& url, std::time_t now) const {
  if (dir_.empty()) return std::nullopt;
  const std::filesystem::path base = std::filesystem::path(dir_) / key(url);
  const auto meta_text = read_all(base.string() + ".json");
  if (!meta_text) return std::nullopt;
  const auto meta = nlohmann::json::parse(*meta_text, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.contains("url") || meta["url"] != url) return std::nullopt;
  CachedResponse r;
  const auto& expires = meta.value("expires", nlohmann::json());
  if (expires.is_number_integer()) {
    r.expires = expires.get<std::time_t>();
    if (now >= *r.expires) return std::nullopt;
  } else if (!expires.is_null()) {
    return std::nullopt;
  }
  const auto& headers = meta.value("headers", nlohmann::json::array());
  if (!headers.is_array()) return std::nullopt;
  for (const auto& h : headers) {
    if (!h.is_array() || h.size() != 2 || !h[0].is_string() || !h[1].is_string()) return std::nullopt;
    r.headers.emplace_back(h[0].get<std::string>(), h[1].get<std::string>());
  }
  auto body = read_all(base.string() + ".body");
  if (!body) return std::nullopt;
  r.body = std::move(*body);
  return r;
}

void EndorsementCache::remove(const std::string& url) const {
  if (dir_.empty()) return;
  std::error_code ec;
  const std::filesystem::path stem = std::filesystem::path(dir_) / key(url);
  std::filesystem::remove(stem.string() + ".json", ec);
  std::filesystem::remove(stem.string() + ".body", ec);
}

bool EndorsementCache::store(const std::string& url, const CachedResponse& response) const {
  if (dir_.empty()) return false;
  std::error_code ec;
  const std::filesystem::path dir(dir_);
  if (!std::filesystem::is_directory(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) return false;
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  }
  nlohmann::json meta = {{"url", url}, {"headers", nlohmann::json::array()}};
  meta["expires"] = response.expires ? nlohmann::json(*response.expires) : nlohmann::json();
  for (const auto& [k, v] : response.headers) meta["headers"].push_back({k, v});
  const std::filesystem::path base = dir / key(url);
  // Body first: an entry is only found through its metadata.
  return write_atomically(base.string() + ".body", response.body) &&
         write_atomically(base.string() + ".json", meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return std::string(xdg) + "/a3s-power-verify";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0')
    return std::string(home) + "/.cache/a3s-power-verify";
  return "";
}

}  // namespace a3s::power::verify::online
