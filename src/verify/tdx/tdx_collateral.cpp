#include "verify/tdx/tdx_collateral.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace a3s::power::verify::tdx {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("TDX collateral: cannot read " + path.string());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TdxCollateral load_tdx_collateral_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::path base(dir);
  TdxCollateral c;
  c.tcb_info_json = read_file(base / "tcbInfo.json");
  c.qe_identity_json = read_file(base / "qeIdentity.json");
  c.tcb_sign_chain_pem = read_file(base / "tcbSignChain.pem");
  for (const char* name : {"rootCaCrl.der", "intermediateCaCrl.der"}) {
    if (fs::exists(base / name)) {
      std::string bytes = read_file(base / name);
      c.crls_der.emplace_back(bytes.begin(), bytes.end());
    }
  }
  return c;
}

}  // namespace a3s::power::verify::tdx
