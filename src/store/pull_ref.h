// Parsing of pull references (see store.h for the accepted forms and the default-name rule).
//
// URL handling follows RFC 3986 only as far as the store needs it: scheme, authority (host and
// optional port; user information is refused), path, and a query/fragment that is fetched but never
// recorded. Plain http:// is accepted only for loopback hosts: "localhost", IPv4 127.0.0.0/8 in
// dotted-decimal form, and "[::1]".
#pragma once

#include <optional>
#include <string>

namespace a3s::power::store {

struct PullRef {
  enum class Kind { kLocalPath, kUrl };
  Kind kind = Kind::kLocalPath;
  std::string path;                // kLocalPath: the file as given
  std::string url;                 // kUrl: what is fetched (hf:// already resolved)
  std::string host;                // kUrl: host name (for messages; never the full URL)
  bool loopback_http = false;      // kUrl: plain http to a loopback host
  bool huggingface = false;        // came from hf://
  std::optional<std::string> pin;  // lowercase hex from a trailing "@sha256:<hex>"
  std::string default_name;        // empty when the reference has no usable last component
  std::string source;              // recorded in the manifest (no pin, query, fragment)
};

// Parses `ref`. `hf_endpoint` replaces "https://huggingface.co" for hf:// references (no trailing
// slash needed). Throws Error(codes::kInvalidArgument) for a malformed reference, an unsupported scheme,
// credentials in a URL, plain http:// to a non-loopback host, or a malformed pin.
PullRef parse_pull_ref(const std::string& ref, const std::string& hf_endpoint = "https://huggingface.co");

// True for "localhost", dotted-decimal 127.x.y.z and "::1" / "[::1]".
bool is_loopback_host(const std::string& host);

}  // namespace a3s::power::store
