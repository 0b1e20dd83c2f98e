#include "verify/tdx/tdx_collateral.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace a3s::power::verify::tdx {
namespace {

// Collateral files are small (tens of KiB); anything that is not a regular file, or larger than
// this, is refused rather than read (a FIFO or /dev/zero would never end).
constexpr std::uintmax_t kMaxCollateralFileBytes = 16u << 20;

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::is_regular_file(status))
    throw std::runtime_error("TDX collateral: " + path.string() + " is not a readable regular file");
  if (std::filesystem::file_size(path, ec) > kMaxCollateralFileBytes || ec)
    throw std::runtime_error("TDX collateral: " + path.string() + " is larger than 16 MiB");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("TDX collateral: cannot read " + path.string());
  std::string bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
  if (bytes.size() > kMaxCollateralFileBytes)
    throw std::runtime_error("TDX collateral: " + path.string() + " is larger than 16 MiB");
  return bytes;
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
