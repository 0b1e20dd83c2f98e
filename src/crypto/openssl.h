// RAII owners for OpenSSL objects: the one set of handle types of the project. Each handle is a
// std::unique_ptr whose deleter calls exactly one OpenSSL free function (all of them accept nullptr):
//
//   X509Ptr              X509                X509_free
//   X509CrlPtr           X509_CRL            X509_CRL_free
//   X509NamePtr          X509_NAME           X509_NAME_free
//   X509ExtensionPtr     X509_EXTENSION      X509_EXTENSION_free
//   X509StorePtr         X509_STORE          X509_STORE_free
//   X509StoreCtxPtr      X509_STORE_CTX      X509_STORE_CTX_free
//   X509StackPtr         STACK_OF(X509)      sk_X509_free: frees the stack only, NOT the certificates
//                                            in it (they stay owned elsewhere, e.g. by X509Ptrs)
//   EvpPkeyPtr           EVP_PKEY            EVP_PKEY_free: OpenSSL clears private key material
//                                            (EC, Ed25519) when the last reference goes
//   EvpPkeyCtxPtr        EVP_PKEY_CTX        EVP_PKEY_CTX_free
//   EvpMdCtxPtr          EVP_MD_CTX          EVP_MD_CTX_free
//   EvpCipherCtxPtr      EVP_CIPHER_CTX      EVP_CIPHER_CTX_free: clears the key schedule
//   BioPtr               BIO                 BIO_free
//   BignumPtr            BIGNUM              BN_free (not BN_clear_free: for public values only)
//   EcdsaSigPtr          ECDSA_SIG           ECDSA_SIG_free (also frees the r and s it owns)
//   Asn1ObjectPtr        ASN1_OBJECT         ASN1_OBJECT_free
//   Asn1OctetStringPtr   ASN1_OCTET_STRING   ASN1_OCTET_STRING_free
//   Asn1TimePtr          ASN1_TIME           ASN1_TIME_free
//   Asn1SequenceAnyPtr   ASN1_SEQUENCE_ANY   sk_ASN1_TYPE_pop_free(p, ASN1_TYPE_free): frees the
//                                            stack AND every ASN1_TYPE element in it
//   OpensslBytesPtr      unsigned char       OPENSSL_free (buffers OpenSSL allocated, e.g. by i2d_*)
//   SslCtxPtr            SSL_CTX             SSL_CTX_free
//   SslPtr               SSL                 SSL_free
#pragma once

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

namespace a3s::power::crypto {

struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct X509CrlFree {
  void operator()(X509_CRL* p) const { X509_CRL_free(p); }
};
struct X509NameFree {
  void operator()(X509_NAME* p) const { X509_NAME_free(p); }
};
struct X509ExtensionFree {
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
struct X509StoreFree {
  void operator()(X509_STORE* p) const { X509_STORE_free(p); }
};
struct X509StoreCtxFree {
  void operator()(X509_STORE_CTX* p) const { X509_STORE_CTX_free(p); }
};
struct X509StackFree {
  void operator()(STACK_OF(X509) * p) const { sk_X509_free(p); }  // the certificates are not freed
};
struct EvpPkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }  // OpenSSL clears private keys on free
};
struct EvpPkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
struct EvpMdCtxFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
struct EvpCipherCtxFree {
  void operator()(EVP_CIPHER_CTX* p) const { EVP_CIPHER_CTX_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
struct BignumFree {
  void operator()(BIGNUM* p) const { BN_free(p); }
};
struct EcdsaSigFree {
  void operator()(ECDSA_SIG* p) const { ECDSA_SIG_free(p); }
};
struct Asn1ObjectFree {
  void operator()(ASN1_OBJECT* p) const { ASN1_OBJECT_free(p); }
};
struct Asn1OctetStringFree {
  void operator()(ASN1_OCTET_STRING* p) const { ASN1_OCTET_STRING_free(p); }
};
struct Asn1TimeFree {
  void operator()(ASN1_TIME* p) const { ASN1_TIME_free(p); }
};
struct Asn1SequenceAnyFree {
  void operator()(ASN1_SEQUENCE_ANY* p) const { sk_ASN1_TYPE_pop_free(p, ASN1_TYPE_free); }  // and the elements
};
struct OpensslBytesFree {
  void operator()(unsigned char* p) const { OPENSSL_free(p); }
};
struct SslCtxFree {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};
struct SslFree {
  void operator()(SSL* p) const { SSL_free(p); }
};

using X509Ptr = std::unique_ptr<X509, X509Free>;
using X509CrlPtr = std::unique_ptr<X509_CRL, X509CrlFree>;
using X509NamePtr = std::unique_ptr<X509_NAME, X509NameFree>;
using X509ExtensionPtr = std::unique_ptr<X509_EXTENSION, X509ExtensionFree>;
using X509StorePtr = std::unique_ptr<X509_STORE, X509StoreFree>;
using X509StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, X509StoreCtxFree>;
using X509StackPtr = std::unique_ptr<STACK_OF(X509), X509StackFree>;
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, EvpPkeyFree>;
using EvpPkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, EvpPkeyCtxFree>;
using EvpMdCtxPtr = std::unique_ptr<EVP_MD_CTX, EvpMdCtxFree>;
using EvpCipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, EvpCipherCtxFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using BignumPtr = std::unique_ptr<BIGNUM, BignumFree>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, EcdsaSigFree>;
using Asn1ObjectPtr = std::unique_ptr<ASN1_OBJECT, Asn1ObjectFree>;
using Asn1OctetStringPtr = std::unique_ptr<ASN1_OCTET_STRING, Asn1OctetStringFree>;
using Asn1TimePtr = std::unique_ptr<ASN1_TIME, Asn1TimeFree>;
using Asn1SequenceAnyPtr = std::unique_ptr<ASN1_SEQUENCE_ANY, Asn1SequenceAnyFree>;
using OpensslBytesPtr = std::unique_ptr<unsigned char, OpensslBytesFree>;
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;
using SslPtr = std::unique_ptr<SSL, SslFree>;

}  // namespace a3s::power::crypto
