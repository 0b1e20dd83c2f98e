#include "verify/tdx/pck_extensions.h"

#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "crypto/openssl.h"

namespace a3s::power::verify::tdx {
namespace {

constexpr const char* kSgxExtensionsOid = "1.2.840.113741.1.13.1";

[[noreturn]] void bad(const std::string& what) {
  throw std::runtime_error("PCK SGX extension: " + what);
}

crypto::Asn1SequenceAnyPtr parse_sequence(const unsigned char* der, long len, const std::string& what) {
  const unsigned char* p = der;
  crypto::Asn1SequenceAnyPtr seq(d2i_ASN1_SEQUENCE_ANY(nullptr, &p, len));
  if (!seq || p != der + len) bad(what + " is not a DER SEQUENCE");
  return seq;
}

crypto::Asn1SequenceAnyPtr parse_sequence(const ASN1_TYPE* t, const std::string& what) {
  if (t == nullptr || t->type != V_ASN1_SEQUENCE) bad(what + " is not a SEQUENCE");
  return parse_sequence(t->value.sequence->data, t->value.sequence->length, what);
}

// The dotted OID and value of a { OID, value } pair.
std::pair<std::string, const ASN1_TYPE*> member(ASN1_SEQUENCE_ANY* pair, const std::string& what) {
  if (sk_ASN1_TYPE_num(pair) != 2) bad(what + " is not an { OID, value } pair");
  const ASN1_TYPE* oid = sk_ASN1_TYPE_value(pair, 0);
  if (oid->type != V_ASN1_OBJECT) bad(what + " does not start with an OID");
  char buf[128];
  int n = OBJ_obj2txt(buf, sizeof buf, oid->value.object, 1);
  if (n <= 0 || n >= static_cast<int>(sizeof buf)) bad(what + " has an unreadable OID");
  return {std::string(buf, static_cast<size_t>(n)), sk_ASN1_TYPE_value(pair, 1)};
}

template <size_t N>
void octets(const ASN1_TYPE* v, std::array<uint8_t, N>& out, const std::string& what) {
  if (v->type != V_ASN1_OCTET_STRING || v->value.octet_string->length != static_cast<int>(N)) {
    bad(what + " is not an OCTET STRING of " + std::to_string(N) + " bytes");
  }
  std::copy_n(v->value.octet_string->data, N, out.begin());
}

long integer(const ASN1_TYPE* v, long max, const std::string& what) {
  if (v->type != V_ASN1_INTEGER) bad(what + " is not an INTEGER");
  long x = ASN1_INTEGER_get(v->value.integer);
  if (x < 0 || x > max) bad(what + " value " + std::to_string(x) + " is out of range");
  return x;
}

void parse_tcb(const ASN1_TYPE* v, PckExtensions& ext) {
  const std::string tcb_oid = std::string(kSgxExtensionsOid) + ".2.";
  crypto::Asn1SequenceAnyPtr tcb = parse_sequence(v, "TCB");
  unsigned seen = 0;
  for (int i = 0; i < sk_ASN1_TYPE_num(tcb.get()); ++i) {
    crypto::Asn1SequenceAnyPtr pair = parse_sequence(sk_ASN1_TYPE_value(tcb.get(), i), "TCB member");
    auto [oid, value] = member(pair.get(), "TCB member");
    if (oid.rfind(tcb_oid, 0) != 0) continue;
    int index = std::atoi(oid.c_str() + tcb_oid.size());
    if (index >= 1 && index <= 16) {
      ext.sgx_tcb_components[static_cast<size_t>(index - 1)] =
          static_cast<uint8_t>(integer(value, 255, "SGX TCB component " + std::to_string(index)));
    } else if (index == 17) {
      ext.pce_svn = static_cast<uint16_t>(integer(value, 65535, "PCESVN"));
    } else if (index == 18) {
      octets(value, ext.cpu_svn, "CPUSVN");
    } else {
      continue;
    }
    seen |= 1u << index;
  }
  if (seen != 0x7fffeu) bad("TCB does not carry all 16 components, PCESVN and CPUSVN");
}

}  // namespace

PckExtensions parse_pck_extensions(X509* pck_cert) {
  ASN1_OBJECT* want = OBJ_txt2obj(kSgxExtensionsOid, 1);
  int loc = want ? X509_get_ext_by_OBJ(pck_cert, want, -1) : -1;
  ASN1_OBJECT_free(want);
  if (loc < 0) bad("absent (not a PCK certificate)");
  ASN1_OCTET_STRING* data = X509_EXTENSION_get_data(X509_get_ext(pck_cert, loc));
  crypto::Asn1SequenceAnyPtr top = parse_sequence(data->data, data->length, "extension value");

  PckExtensions ext;
  bool have_tcb = false, have_pce_id = false, have_fmspc = false;
  const std::string base = std::string(kSgxExtensionsOid) + ".";
  for (int i = 0; i < sk_ASN1_TYPE_num(top.get()); ++i) {
    crypto::Asn1SequenceAnyPtr pair = parse_sequence(sk_ASN1_TYPE_value(top.get(), i), "member");
    auto [oid, value] = member(pair.get(), "member");
    if (oid == base + "2") {
      parse_tcb(value, ext);
      have_tcb = true;
    } else if (oid == base + "3") {
      octets(value, ext.pce_id, "PCE-ID");
      have_pce_id = true;
    } else if (oid == base + "4") {
      octets(value, ext.fmspc, "FMSPC");
      have_fmspc = true;
    }
  }
  if (!have_tcb) bad("TCB member missing");
  if (!have_pce_id) bad("PCE-ID member missing");
  if (!have_fmspc) bad("FMSPC member missing");
  return ext;
}

}  // namespace a3s::power::verify::tdx
