#include "store/pull_ref.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "a3s/power/error.h"
#include "base/percent_encode.h"
#include "store/model_name.h"
#include "store/sha256_hasher.h"

namespace a3s::power::store {
namespace {

constexpr std::string_view kPinMarker = "@sha256:";
constexpr size_t kMaxRefBytes = 8192;

[[noreturn]] void bad_ref(const std::string& why) {
  throw Error(codes::kInvalidArgument, "invalid model reference: " + why);
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && lower(s.substr(0, prefix.size())) == prefix;
}

// Last path component without a trailing ".gguf" (any case); empty when unusable as a name.
std::string name_from_component(std::string component) {
  if (component.size() > 5 && lower(component.substr(component.size() - 5)) == ".gguf")
    component.resize(component.size() - 5);
  if (component == "." || component == "..") return {};
  return model_name_problem(component).empty() ? component : std::string{};
}

bool has_space_or_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c <= 0x20 || c == 0x7F;
  });
}

bool is_dotted_loopback_v4(const std::string& host) {
  std::vector<int> octets;
  size_t i = 0;
  for (;;) {
    const size_t j = std::min(host.find('.', i), host.size());
    const std::string part = host.substr(i, j - i);
    if (part.empty() || part.size() > 3 ||
        !std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); }))
      return false;
    octets.push_back(std::stoi(part));
    if (octets.back() > 255 || octets.size() > 4) return false;
    if (j == host.size()) break;
    i = j + 1;
  }
  return octets.size() == 4 && octets[0] == 127;
}

PullRef parse_url(const std::string& url) {
  PullRef r;
  r.kind = PullRef::Kind::kUrl;
  const bool https = starts_with_ci(url, "https://");
  const size_t scheme_len = https ? 8 : 7;
  const std::string scheme = https ? "https" : "http";
  const size_t auth_end = url.find_first_of("/?#", scheme_len);
  const std::string authority =
      url.substr(scheme_len, auth_end == std::string::npos ? std::string::npos : auth_end - scheme_len);
  if (authority.empty()) bad_ref("URL has no host");
  if (authority.find('@') != std::string::npos) bad_ref("credentials in URLs are not supported");
  std::string host = authority, port;
  if (host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string::npos) bad_ref("unterminated IPv6 address in URL");
    port = host.substr(close + 1);
    host = host.substr(0, close + 1);
    if (!port.empty() && port.front() != ':') bad_ref("malformed URL authority");
    if (!port.empty()) port.erase(0, 1);
  } else if (const size_t colon = host.rfind(':'); colon != std::string::npos) {
    port = host.substr(colon + 1);
    host = host.substr(0, colon);
  }
  if (host.empty()) bad_ref("URL has no host");
  if (!std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      port.size() > 5)
    bad_ref("malformed port in URL");
  r.host = lower(host);
  if (!https) {
    if (!is_loopback_host(r.host)) bad_ref("plain http:// is only allowed to loopback hosts; use https://");
    r.loopback_http = true;
  }
  std::string path = auth_end == std::string::npos ? std::string{} : url.substr(auth_end);
  const size_t qf = path.find_first_of("?#");
  if (qf != std::string::npos) path.resize(qf);
  r.url = url;
  r.source = scheme + "://" + authority + path;
  const size_t last = path.rfind('/');
  const std::string component = last == std::string::npos ? path : path.substr(last + 1);
  if (auto decoded = percent_decode(component)) r.default_name = name_from_component(*decoded);
  return r;
}

PullRef parse_hf(const std::string& ref, const std::string& endpoint) {
  const std::string rest = ref.substr(5);  // after "hf://"
  std::vector<std::string> segs;
  size_t i = 0;
  for (;;) {
    const size_t j = rest.find('/', i);
    segs.push_back(rest.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  if (segs.size() < 3) bad_ref("hf:// references need org/repo/path/to/file.gguf");
  for (const auto& s : segs) {
    if (s.empty() || s == "." || s == "..") bad_ref("hf:// reference has an empty or relative path segment");
    if (s.find_first_of("?#%\\") != std::string::npos)
      bad_ref("hf:// reference contains '?', '#', '%' or '\\'");
  }
  std::string base = endpoint.empty() ? std::string("https://huggingface.co") : endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::string url =
      base + "/" + percent_encode(segs[0]) + "/" + percent_encode(segs[1]) + "/resolve/main";
  for (size_t k = 2; k < segs.size(); ++k) {
    url.push_back('/');
    url.append(percent_encode(segs[k]));
  }
  if (!starts_with_ci(url, "https://") && !starts_with_ci(url, "http://"))
    bad_ref("the Hugging Face endpoint must be an https:// URL");
  PullRef r = parse_url(url);
  r.huggingface = true;
  r.source = ref;
  r.default_name = name_from_component(segs.back());
  return r;
}

}  // namespace

bool is_loopback_host(const std::string& host_in) {
  const std::string host = lower(host_in);
  return host == "localhost" || host == "[::1]" || host == "::1" || is_dotted_loopback_v4(host);
}

PullRef parse_pull_ref(const std::string& ref_in, const std::string& hf_endpoint) {
  if (ref_in.empty()) bad_ref("empty");
  if (ref_in.size() > kMaxRefBytes) bad_ref("longer than 8192 bytes");
  std::string ref = ref_in;
  std::optional<std::string> pin;
  if (const size_t at = ref.rfind(kPinMarker); at != std::string::npos) {
    const std::string hex = ref.substr(at + kPinMarker.size());
    if (!is_sha256_hex(hex)) bad_ref("the @sha256: pin must be 64 hex characters");
    pin = lower(hex);
    ref.resize(at);
    if (ref.empty()) bad_ref("nothing before the @sha256: pin");
  }

  PullRef r;
  if (starts_with_ci(ref, "hf://")) {
    if (has_space_or_control(ref)) bad_ref("contains whitespace or control characters");
    r = parse_hf(ref, hf_endpoint);
  } else if (starts_with_ci(ref, "https://") || starts_with_ci(ref, "http://")) {
    if (has_space_or_control(ref)) bad_ref("contains whitespace or control characters");
    r = parse_url(ref);
  } else {
    const size_t scheme_end = ref.find("://");
    if (scheme_end != std::string::npos && ref.find('/') > scheme_end)
      bad_ref("unsupported scheme (use a path, https://, http:// to loopback, or hf://)");
    if (ref.find('\0') != std::string::npos) bad_ref("contains a NUL byte");
    r.kind = PullRef::Kind::kLocalPath;
    r.path = ref;
    r.source = ref;
    const size_t slash = ref.rfind('/');
    r.default_name = name_from_component(slash == std::string::npos ? ref : ref.substr(slash + 1));
  }
  r.pin = pin;
  return r;
}

}  // namespace a3s::power::store
