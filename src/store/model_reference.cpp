#include "store/model_reference.h"

#include <filesystem>
#include <optional>
#include <system_error>

#include "a3s/power/error.h"
#include "base/printable.h"

namespace a3s::power::store {

bool is_path_reference(const std::string& ref) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(ref, ec)) return true;
  return ref.ends_with(".gguf") || ref.starts_with("/") || ref.starts_with("./") || ref.starts_with("../");
}

std::string default_model_name(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  if (name.ends_with(".gguf")) name.resize(name.size() - 5);
  return name;
}

std::string resolve_model_file(const std::string& ref, const Store& store) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(ref, ec)) return ref;
  if (std::optional<Manifest> m = store.find(ref)) {
    std::string path = store.blob_path(m->digest);
    if (!std::filesystem::is_regular_file(path, ec)) {
      throw Error(codes::kModelNotFound, "the model's file is missing from the store; pull it again");
    }
    return path;
  }
  throw Error(codes::kModelNotFound, "model '" + printable_name(ref) + "' not found" +
                                         ": not a GGUF file and not in the store (see `a3s-power list`, `a3s-power pull`)");
}

}  // namespace a3s::power::store
