#include "http_client/http_client_built.h"

#include "base/build_info.h"

namespace a3s::power::client {

void require_http_client(std::string_view what) {
  if (!http_client_built()) throw not_built(what, "built without libcurl");
}

}  // namespace a3s::power::client
