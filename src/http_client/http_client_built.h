// Whether this build has the HTTP client. A build without libcurl (the CMake option A3S_WITH_CURL=OFF,
// the tee-minimal profile) has the client's types and functions, but HttpClient and the parsing of
// http(s) URLs throw Error(codes::kNotBuilt) there (http_client_not_built.cpp replaces the transport);
// the commands that need the client call require_http_client first, so that they fail with their
// own name instead.
#pragma once

#include <string_view>

namespace a3s::power::client {

bool http_client_built() noexcept;

// Throws Error(codes::kNotBuilt) "<what> is not built into this profile (<profile>: built without
// libcurl)" unless http_client_built().
void require_http_client(std::string_view what);

}  // namespace a3s::power::client
