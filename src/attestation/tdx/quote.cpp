#include "attestation/tdx/quote.h"

#include <algorithm>
#include <cstring>

#include "attestation/verify_result.h"

namespace a3s::power::verify::tdx {
namespace {

// Bounds-checked little-endian reader over the quote; every failure names the field and its offset.
class Reader {
 public:
  // `base` is the offset of bytes[0] in the whole quote (for messages).
  explicit Reader(std::span<const uint8_t> bytes, size_t base = 0) : bytes_(bytes), base_(base) {}

  size_t offset() const { return base_ + off_; }
  size_t remaining() const { return bytes_.size() - off_; }

  std::span<const uint8_t> take(size_t n, const char* field) {
    if (n > remaining()) {
      throw TdxQuoteError(steps::kMalformedEvidence, std::string("TDX quote truncated: ") + field +
                                                         " needs " + std::to_string(n) + " bytes at offset " +
                                                         std::to_string(offset()) + ", only " +
                                                         std::to_string(remaining()) + " left");
    }
    auto s = bytes_.subspan(off_, n);
    off_ += n;
    return s;
  }
  template <size_t N>
  void copy(std::array<uint8_t, N>& out, const char* field) {
    auto s = take(N, field);
    std::copy(s.begin(), s.end(), out.begin());
  }
  uint16_t u16(const char* field) {
    auto s = take(2, field);
    return static_cast<uint16_t>(s[0] | (s[1] << 8));
  }
  uint32_t u32(const char* field) {
    auto s = take(4, field);
    return static_cast<uint32_t>(s[0]) | (static_cast<uint32_t>(s[1]) << 8) |
           (static_cast<uint32_t>(s[2]) << 16) | (static_cast<uint32_t>(s[3]) << 24);
  }

 private:
  std::span<const uint8_t> bytes_;
  size_t base_ = 0;
  size_t off_ = 0;
};

[[noreturn]] void malformed(const std::string& message) {
  throw TdxQuoteError(steps::kMalformedEvidence, "TDX quote: " + message);
}

// A 32-bit size field that must cover exactly the rest of the signature data after it.
uint32_t size_filling_rest(Reader& sr, const char* field) {
  const size_t off = sr.offset();
  const uint32_t size = sr.u32(field);
  if (size != sr.remaining()) {
    malformed(std::string(field) + " " + std::to_string(size) + " at offset " + std::to_string(off) +
              " does not fill the signature data (" + std::to_string(sr.remaining()) + " bytes left)");
  }
  return size;
}

QuoteHeader parse_header(Reader& r) {
  QuoteHeader h;
  h.version = r.u16("header.version");
  if (h.version != kQuoteVersion4 && h.version != kQuoteVersion5) {
    throw TdxQuoteError(steps::kUnsupportedVersion, "TDX quote: version " + std::to_string(h.version) +
                                                        " at offset 0 is not supported (4 or 5)");
  }
  h.attestation_key_type = r.u16("header.attestation_key_type");
  if (h.attestation_key_type != kAttestationKeyEcdsaP256) {
    throw TdxQuoteError(steps::kUnsupportedVersion, "TDX quote: attestation key type " +
                                                        std::to_string(h.attestation_key_type) +
                                                        " at offset 2 is not supported (2 = ECDSA P-256)");
  }
  h.tee_type = r.u32("header.tee_type");
  if (h.tee_type != kTeeTypeTdx) {
    throw TdxQuoteError(steps::kUnsupportedVersion, "TDX quote: TEE type " + std::to_string(h.tee_type) +
                                                        " at offset 4 is not TDX (0x81)");
  }
  r.copy(h.reserved, "header.reserved");
  r.copy(h.qe_vendor_id, "header.qe_vendor_id");
  r.copy(h.user_data, "header.user_data");
  return h;
}

TdReportBody parse_body(Reader& r, bool tdx15) {
  TdReportBody b;
  r.copy(b.tee_tcb_svn, "body.TEE_TCB_SVN");
  r.copy(b.mr_seam, "body.MRSEAM");
  r.copy(b.mr_signer_seam, "body.MRSIGNERSEAM");
  r.copy(b.seam_attributes, "body.SEAMATTRIBUTES");
  r.copy(b.td_attributes, "body.TDATTRIBUTES");
  r.copy(b.xfam, "body.XFAM");
  r.copy(b.mr_td, "body.MRTD");
  r.copy(b.mr_config_id, "body.MRCONFIGID");
  r.copy(b.mr_owner, "body.MROWNER");
  r.copy(b.mr_owner_config, "body.MROWNERCONFIG");
  for (auto& rtmr : b.rtmr) r.copy(rtmr, "body.RTMR");
  r.copy(b.report_data, "body.REPORTDATA");
  if (tdx15) {
    b.has_tdx15_fields = true;
    r.copy(b.tee_tcb_svn_2, "body.TEE_TCB_SVN_2");
    r.copy(b.mr_service_td, "body.MRSERVICETD");
  }
  return b;
}

QeReport parse_qe_report(std::span<const uint8_t> q) {
  auto u16 = [&](size_t o) { return static_cast<uint16_t>(q[o] | (q[o + 1] << 8)); };
  QeReport rep;
  std::copy_n(q.begin(), 16, rep.cpu_svn.begin());
  std::copy_n(q.begin() + 16, 4, rep.misc_select.begin());
  std::copy_n(q.begin() + 48, 16, rep.attributes.begin());
  std::copy_n(q.begin() + 64, 32, rep.mr_enclave.begin());
  std::copy_n(q.begin() + 128, 32, rep.mr_signer.begin());
  rep.isv_prod_id = u16(256);
  rep.isv_svn = u16(258);
  std::copy_n(q.begin() + 320, 64, rep.report_data.begin());
  return rep;
}

}  // namespace

TdxQuote parse_tdx_quote(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  TdxQuote q;
  q.header = parse_header(r);

  bool tdx15 = false;
  if (q.header.version == kQuoteVersion5) {
    size_t type_off = r.offset();
    q.body_type = r.u16("body descriptor.type");
    uint32_t size = r.u32("body descriptor.size");
    if (q.body_type == 2) {
      tdx15 = false;
    } else if (q.body_type == 3) {
      tdx15 = true;
    } else {
      throw TdxQuoteError(steps::kUnsupportedVersion,
                          "TDX quote v5: body type " + std::to_string(q.body_type) + " at offset " +
                              std::to_string(type_off) + " is not supported (2 = TDX 1.0, 3 = TDX 1.5)");
    }
    size_t expected = tdx15 ? kTdReportBody15Size : kTdReportBody10Size;
    if (size != expected) {
      malformed("v5 body size " + std::to_string(size) + " at offset " + std::to_string(type_off + 2) +
                " does not match body type " + std::to_string(q.body_type) + " (" + std::to_string(expected) +
                " bytes)");
    }
  }
  q.body = parse_body(r, tdx15);
  q.signed_bytes.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(r.offset()));

  size_t sig_len_off = r.offset();
  uint32_t sig_len = r.u32("signature data length");
  if (sig_len > r.remaining()) {
    malformed("signature data length " + std::to_string(sig_len) + " at offset " +
              std::to_string(sig_len_off) + " exceeds the " + std::to_string(r.remaining()) +
              " bytes that follow");
  }
  size_t sig_start = r.offset();
  // Everything below reads inside the signature data only.
  Reader sr(r.take(sig_len, "signature data"), sig_start);
  sr.copy(q.signature, "quote signature");
  sr.copy(q.attestation_key, "attestation public key");

  size_t cert_type_off = sr.offset();
  uint16_t cert_type = sr.u16("certification data type");
  if (cert_type != kCertDataQeReport) {
    malformed("certification data type " + std::to_string(cert_type) + " at offset " +
              std::to_string(cert_type_off) + " is not 6 (QE report certification data)");
  }
  (void)size_filling_rest(sr, "certification data size");
  auto qe = sr.take(kQeReportSize, "QE report");
  q.qe_report_bytes.assign(qe.begin(), qe.end());
  q.qe_report = parse_qe_report(qe);
  sr.copy(q.qe_report_signature, "QE report signature");
  uint16_t auth_size = sr.u16("QE auth data size");
  auto auth = sr.take(auth_size, "QE auth data");
  q.qe_auth_data.assign(auth.begin(), auth.end());

  q.pck_cert_data_type = sr.u16("PCK certification data type");
  const uint32_t pck_size = size_filling_rest(sr, "PCK certification data size");
  auto pck = sr.take(pck_size, "PCK certification data");
  q.pck_cert_data.assign(pck.begin(), pck.end());

  // Quote buffers may be zero-padded after the signature data; anything else is not ours to ignore.
  auto rest = bytes.subspan(r.offset());
  auto nz = std::find_if(rest.begin(), rest.end(), [](uint8_t b) { return b != 0; });
  if (nz != rest.end()) {
    malformed("unexpected non-zero byte at offset " +
              std::to_string(r.offset() + static_cast<size_t>(nz - rest.begin())) +
              " after the signature data");
  }
  return q;
}

}  // namespace a3s::power::verify::tdx
