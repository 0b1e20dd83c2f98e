#include "attestation/sev_snp/vcek_extensions.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>

#include <map>

namespace a3s::power::verify::sev_snp {
namespace {

std::string oid_text(const ASN1_OBJECT* obj) {
  char buf[128] = {};
  const int n = OBJ_obj2txt(buf, sizeof(buf), obj, 1);
  if (n <= 0 || n >= static_cast<int>(sizeof(buf))) return {};
  return buf;
}

// DER INTEGER in 0..255 (AMD encodes each SPL as a DER INTEGER).
std::optional<uint8_t> der_spl(const std::string& der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  ASN1_INTEGER* i = d2i_ASN1_INTEGER(nullptr, &p, static_cast<long>(der.size()));
  if (i == nullptr) return std::nullopt;
  const bool whole = p == reinterpret_cast<const unsigned char*>(der.data()) + der.size();
  int64_t v = -1;
  const bool ok = ASN1_INTEGER_get_int64(&v, i) == 1;
  ASN1_INTEGER_free(i);
  if (!whole || !ok || v < 0 || v > 255) return std::nullopt;
  return static_cast<uint8_t>(v);
}

std::string der_ia5(const std::string& der) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  ASN1_IA5STRING* s = d2i_ASN1_IA5STRING(nullptr, &p, static_cast<long>(der.size()));
  if (s == nullptr) return {};
  std::string out(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                  static_cast<size_t>(ASN1_STRING_length(s)));
  ASN1_IA5STRING_free(s);
  return out;
}

std::vector<uint8_t> hw_id_bytes(const std::string& value) {
  // Raw identifier (as AMD issues it); unwrap a DER OCTET STRING of 8 or 64 bytes if present.
  if ((value.size() == 66 && static_cast<uint8_t>(value[0]) == 0x04 &&
       static_cast<uint8_t>(value[1]) == 64) ||
      (value.size() == 10 && static_cast<uint8_t>(value[0]) == 0x04 && static_cast<uint8_t>(value[1]) == 8))
    return {value.begin() + 2, value.end()};
  return {value.begin(), value.end()};
}

}  // namespace

std::optional<VcekExtensions> read_vcek_extensions(const X509* cert, std::string& error) {
  std::map<std::string, std::string> values;  // AMD OID → extension contents
  const int count = X509_get_ext_count(cert);
  for (int i = 0; i < count; ++i) {
    X509_EXTENSION* ext = X509_get_ext(cert, i);
    const std::string oid = oid_text(X509_EXTENSION_get_object(ext));
    if (oid.rfind("1.3.6.1.4.1.3704.", 0) != 0) continue;
    const ASN1_OCTET_STRING* data = X509_EXTENSION_get_data(ext);
    std::string value(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                      static_cast<size_t>(ASN1_STRING_length(data)));
    if (!values.emplace(oid, std::move(value)).second) {
      error = "certificate repeats extension " + oid;
      return std::nullopt;
    }
  }
  VcekExtensions out;
  const std::pair<const char*, uint8_t*> spls[] = {{oids::kBlSpl, &out.tcb.boot_loader},
                                                   {oids::kTeeSpl, &out.tcb.tee},
                                                   {oids::kSnpSpl, &out.tcb.snp},
                                                   {oids::kUcodeSpl, &out.tcb.microcode}};
  for (const auto& [oid, field] : spls) {
    const auto it = values.find(oid);
    if (it == values.end()) {
      error = std::string("certificate lacks the TCB extension ") + oid;
      return std::nullopt;
    }
    const auto spl = der_spl(it->second);
    if (!spl) {
      error = std::string("certificate TCB extension ") + oid + " is not an INTEGER in 0..255";
      return std::nullopt;
    }
    *field = *spl;
  }
  if (const auto it = values.find(oids::kFmcSpl); it != values.end()) {
    const auto spl = der_spl(it->second);
    if (!spl) {
      error = std::string("certificate TCB extension ") + oids::kFmcSpl + " is not an INTEGER in 0..255";
      return std::nullopt;
    }
    out.tcb.fmc = *spl;
    out.has_fmc = true;
  }
  if (const auto it = values.find(oids::kHwId); it != values.end()) out.hw_id = hw_id_bytes(it->second);
  if (const auto it = values.find(oids::kProductName); it != values.end())
    out.product_name = der_ia5(it->second);
  return out;
}

}  // namespace a3s::power::verify::sev_snp
