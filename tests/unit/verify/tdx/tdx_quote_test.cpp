// Quote parsing: the recorded real TDX quote and Intel's sample quote (v4), synthetic v5 quotes
// (TDX 1.0 and 1.5 bodies), and bad input (truncation at every length, bad sizes, garbage).
#include "attestation/tdx/quote.h"

#include <gtest/gtest.h>

#include <random>

#include "base/hex.h"
#include "tdx_test_data.h"

namespace a3s::power::verify::tdx {
namespace {

using namespace testing;

void put_u16(std::vector<uint8_t>& b, size_t off, uint16_t v) {
  b[off] = static_cast<uint8_t>(v);
  b[off + 1] = static_cast<uint8_t>(v >> 8);
}
void put_u32(std::vector<uint8_t>& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (8 * i));
}

// A v5 quote from a v4 one: header (version 5) | type | size | body [+ 64 TDX 1.5 bytes] | signature data.
std::vector<uint8_t> as_v5(const std::vector<uint8_t>& v4, uint16_t body_type) {
  std::vector<uint8_t> out(v4.begin(), v4.begin() + 48);
  put_u16(out, 0, 5);
  uint32_t size = body_type == 3 ? 648 : 584;
  out.resize(54);
  put_u16(out, 48, body_type);
  put_u32(out, 50, size);
  out.insert(out.end(), v4.begin() + 48, v4.begin() + 632);
  for (uint32_t i = 584; i < size; ++i) out.push_back(static_cast<uint8_t>(i));
  out.insert(out.end(), v4.begin() + 632, v4.end());
  return out;
}

TEST(TdxQuote, ParsesTheRealQuote) {
  TdxQuote q = parse_tdx_quote(edgeless_quote());
  EXPECT_EQ(q.header.version, 4);
  EXPECT_EQ(q.header.attestation_key_type, 2);
  EXPECT_EQ(q.header.tee_type, 0x81u);
  EXPECT_EQ(
      to_hex(q.body.mr_td),
      "b65ea009e424e6f761fdd3d7c8962439453b37ecdf62da04f7bc5d327686bb8bafc8a5d24a9c31cee60e4aba87c2f71b");
  std::array<uint8_t, 64> report_data{};
  std::string hello = "Hello from Edgeless Systems!";
  std::copy(hello.begin(), hello.end(), report_data.begin());
  EXPECT_EQ(q.body.report_data, report_data);
  EXPECT_FALSE(q.body.debug());
  EXPECT_FALSE(q.body.has_tdx15_fields);
  EXPECT_EQ(q.signed_bytes.size(), 632u);
  EXPECT_EQ(q.qe_report_bytes.size(), 384u);
  EXPECT_EQ(q.qe_auth_data.size(), 32u);
  EXPECT_EQ(q.pck_cert_data_type, kCertDataPckCertChain);
  std::string pem(q.pck_cert_data.begin(), q.pck_cert_data.end());
  EXPECT_EQ(pem.rfind("-----BEGIN CERTIFICATE-----", 0), 0u);
}

TEST(TdxQuote, ParsesIntelsSampleQuote) {
  TdxQuote q = parse_tdx_quote(sample_quote());
  EXPECT_EQ(q.header.version, 4);
  EXPECT_EQ(to_hex(q.body.tee_tcb_svn), "52c1a38cf7edf30a524b4ebb049f59c7");
  EXPECT_EQ(q.body.mr_td, Measurement48{});
  EXPECT_EQ(q.body.report_data, (std::array<uint8_t, 64>{}));
  EXPECT_EQ(q.qe_report.isv_prod_id, 29854);
  EXPECT_EQ(q.qe_report.isv_svn, 12677);
  EXPECT_TRUE(q.qe_auth_data.empty());
}

TEST(TdxQuote, ParsesV5BodyTypes) {
  std::vector<uint8_t> v4 = edgeless_quote();
  TdxQuote v4q = parse_tdx_quote(v4);

  TdxQuote q2 = parse_tdx_quote(as_v5(v4, 2));
  EXPECT_EQ(q2.header.version, 5);
  EXPECT_EQ(q2.body_type, 2);
  EXPECT_FALSE(q2.body.has_tdx15_fields);
  EXPECT_EQ(q2.body.mr_td, v4q.body.mr_td);
  EXPECT_EQ(q2.signed_bytes.size(), 48u + 6u + 584u);
  EXPECT_EQ(q2.qe_report_bytes, v4q.qe_report_bytes);

  TdxQuote q3 = parse_tdx_quote(as_v5(v4, 3));
  EXPECT_EQ(q3.body_type, 3);
  EXPECT_TRUE(q3.body.has_tdx15_fields);
  EXPECT_EQ(q3.body.rtmr[3], v4q.body.rtmr[3]);
  EXPECT_EQ(q3.body.report_data, v4q.body.report_data);
  EXPECT_EQ(q3.body.tee_tcb_svn_2[0], 584 & 0xFF);
  EXPECT_EQ(q3.body.mr_service_td[47], static_cast<uint8_t>(647));
  EXPECT_EQ(q3.signed_bytes.size(), 48u + 6u + 648u);
}

TEST(TdxQuote, V5BadBodyTypeOrSize) {
  std::vector<uint8_t> v5 = as_v5(edgeless_quote(), 3);
  std::vector<uint8_t> bad_type = v5;
  put_u16(bad_type, 48, 4);
  try {
    parse_tdx_quote(bad_type);
    FAIL();
  } catch (const TdxQuoteError& e) {
    EXPECT_STREQ(e.step(), steps::kUnsupportedVersion);
    EXPECT_NE(std::string(e.what()).find("offset 48"), std::string::npos) << e.what();
  }
  std::vector<uint8_t> bad_size = v5;
  put_u32(bad_size, 50, 584);
  try {
    parse_tdx_quote(bad_size);
    FAIL();
  } catch (const TdxQuoteError& e) {
    EXPECT_STREQ(e.step(), steps::kMalformedEvidence);
    EXPECT_NE(std::string(e.what()).find("offset 50"), std::string::npos) << e.what();
  }
}

TEST(TdxQuote, HeaderFieldsNameTheirOffsets) {
  struct Case {
    size_t offset;
    uint8_t value;
    const char* step;
  };
  for (Case c : {Case{0, 3, steps::kUnsupportedVersion}, Case{2, 3, steps::kUnsupportedVersion},
                 Case{4, 0x00, steps::kUnsupportedVersion}}) {
    std::vector<uint8_t> q = edgeless_quote();
    q[c.offset] = c.value;
    try {
      parse_tdx_quote(q);
      FAIL() << c.offset;
    } catch (const TdxQuoteError& e) {
      EXPECT_STREQ(e.step(), c.step);
      EXPECT_NE(std::string(e.what()).find("offset " + std::to_string(c.offset)), std::string::npos)
          << e.what();
    }
  }
}

TEST(TdxQuote, EveryTruncationIsAClearError) {
  std::vector<uint8_t> q = edgeless_quote();
  for (size_t n = 0; n < q.size(); ++n) {
    std::vector<uint8_t> t(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(n));
    try {
      parse_tdx_quote(t);
      FAIL() << "truncated to " << n << " bytes parsed";
    } catch (const TdxQuoteError& e) {
      EXPECT_STREQ(e.step(), steps::kMalformedEvidence) << n;
      EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
    }
  }
}

TEST(TdxQuote, SizeFieldsAreChecked) {
  // signature data length at 632, certification data size at 632+4+128+2, PCK data size further on.
  const size_t sig_len = 632, cert_size = 632 + 4 + 128 + 2;
  const size_t pck_size = cert_size + 4 + 384 + 64 + 2 + 32 + 2;
  for (size_t off : {sig_len, cert_size, pck_size}) {
    for (uint32_t v : {0u, 1u, 0x7fffffffu, 0xffffffffu}) {
      std::vector<uint8_t> q = edgeless_quote();
      put_u32(q, off, v);
      try {
        parse_tdx_quote(q);
        FAIL() << off << " " << v;
      } catch (const TdxQuoteError& e) {
        EXPECT_STREQ(e.step(), steps::kMalformedEvidence) << e.what();
      }
    }
  }
  std::vector<uint8_t> q = edgeless_quote();
  put_u16(q, cert_size - 2, 5);  // outer certification data must be type 6
  EXPECT_THROW(parse_tdx_quote(q), TdxQuoteError);
}

TEST(TdxQuote, TrailingBytes) {
  std::vector<uint8_t> q = edgeless_quote();
  q.resize(q.size() + 16, 0);  // zero padding is accepted
  EXPECT_NO_THROW(parse_tdx_quote(q));
  q.back() = 1;
  EXPECT_THROW(parse_tdx_quote(q), TdxQuoteError);
}

TEST(TdxQuote, GarbageNeverCrashes) {
  std::mt19937 rng(7);
  std::vector<uint8_t> base = edgeless_quote();
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> g;
    if (i % 2 == 0) {
      g.resize(rng() % 6000);
      for (auto& b : g) b = static_cast<uint8_t>(rng());
      if (g.size() >= 8) {  // a valid header prefix so parsing reaches the later fields
        std::copy(base.begin(), base.begin() + 8, g.begin());
      }
    } else {
      g = base;
      for (int k = 0; k < 8; ++k) g[rng() % g.size()] = static_cast<uint8_t>(rng());
    }
    try {
      parse_tdx_quote(g);
    } catch (const TdxQuoteError& e) {
      EXPECT_FALSE(std::string(e.what()).empty());
    }
  }
}

}  // namespace
}  // namespace a3s::power::verify::tdx
