// Downloads in a build without libcurl (A3S_WITH_CURL=OFF): there are none. Store::pull refuses a
// remote reference first (downloads_built), so download_to_file is not reached.
#include "base/build_info.h"
#include "store/http_download.h"
#include "store/store.h"

namespace a3s::power::store {

bool downloads_built() noexcept {
  return false;
}

DownloadResult download_to_file(const DownloadRequest&) {
  throw not_built("downloading a model (https://, hf://)", "built without libcurl");
}

}  // namespace a3s::power::store
