#include "net/TlsServerContext.h"

#include "net/OpenSslErrors.h"

#include <QFile>
#include <QFileInfo>
#include <QHostAddress>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <ctime>

namespace sb {

namespace {

// An encrypted key would make OpenSSL ask for a passphrase on the terminal, and a service has none.
int refusePassphrase(char *, int, int, void *)
{
    return 0;
}

int selectHttp11(SSL *, const unsigned char **out, unsigned char *outLength, const unsigned char *offered,
                 unsigned int offeredLength, void *)
{
    static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    unsigned char *chosen = nullptr;
    if (SSL_select_next_proto(&chosen, outLength, http11, sizeof http11, offered, offeredLength) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK; // h2 only: no ALPN answer, and the client's HTTP/1.1 request is still served
    *out = chosen;
    return SSL_TLSEXT_ERR_OK;
}

QDateTime utc(const ASN1_TIME *time)
{
    std::tm parts{};
    if (!time || ASN1_TIME_to_tm(time, &parts) != 1)
        return {};
    return QDateTime(QDate(parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday),
                     QTime(parts.tm_hour, parts.tm_min, parts.tm_sec), Qt::UTC);
}

QString oneLine(const X509_NAME *name)
{
    BIO *bio = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB);
    char *data = nullptr;
    const long size = BIO_get_mem_data(bio, &data);
    const QString text = QString::fromUtf8(data, static_cast<qsizetype>(size));
    BIO_free(bio);
    return text;
}

QStringList alternativeNames(X509 *certificate)
{
    QStringList names;
    auto *entries = static_cast<GENERAL_NAMES *>(X509_get_ext_d2i(certificate, NID_subject_alt_name, nullptr, nullptr));
    for (int i = 0; entries && i < sk_GENERAL_NAME_num(entries); ++i) {
        const GENERAL_NAME *entry = sk_GENERAL_NAME_value(entries, i);
        if (entry->type == GEN_DNS) {
            names << QStringLiteral("DNS:") + QString::fromLatin1(reinterpret_cast<const char *>(ASN1_STRING_get0_data(entry->d.dNSName)),
                                                                   ASN1_STRING_length(entry->d.dNSName));
        } else if (entry->type == GEN_IPADD) {
            const unsigned char *bytes = ASN1_STRING_get0_data(entry->d.iPAddress);
            const int length = ASN1_STRING_length(entry->d.iPAddress);
            QHostAddress address;
            if (length == 4)
                address.setAddress(quint32(bytes[0]) << 24 | quint32(bytes[1]) << 16 | quint32(bytes[2]) << 8 | bytes[3]);
            else if (length == 16)
                address.setAddress(bytes);
            names << QStringLiteral("IP:") + address.toString();
        }
    }
    GENERAL_NAMES_free(entries);
    return names;
}

TlsCertificateInfo describe(X509 *certificate)
{
    TlsCertificateInfo info;
    info.subject = oneLine(X509_get_subject_name(certificate));
    info.names = alternativeNames(certificate);
    info.notBefore = utc(X509_get0_notBefore(certificate));
    info.notAfter = utc(X509_get0_notAfter(certificate));
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (X509_digest(certificate, EVP_sha256(), digest, &length) == 1)
        info.sha256 = QString::fromLatin1(QByteArray(reinterpret_cast<const char *>(digest), int(length)).toHex(':').toUpper());
    return info;
}

QString readProblem(const QString &what, const QString &path)
{
    const QFileInfo file(path);
    if (path.trimmed().isEmpty())
        return QStringLiteral("No %1 file is set.").arg(what);
    if (!file.exists())
        return QStringLiteral("The %1 file %2 does not exist.").arg(what, path);
    if (!file.isReadable())
        return QStringLiteral("The %1 file %2 cannot be read by this user.").arg(what, path);
    return {};
}

} // namespace

std::shared_ptr<const TlsServerContext> TlsServerContext::load(const QString &certificateFile, const QString &keyFile,
                                                               QString *error)
{
    for (const auto &[what, path] : {std::pair{QStringLiteral("TLS certificate"), certificateFile},
                                     std::pair{QStringLiteral("TLS key"), keyFile}}) {
        if (QString problem = readProblem(what, path); !problem.isEmpty()) {
            *error = problem;
            return nullptr;
        }
    }
    ERR_clear_error();
    SSL_CTX *context = SSL_CTX_new(TLS_server_method());
    if (!context) {
        *error = QStringLiteral("OpenSSL could not make a TLS context: %1").arg(takeOpenSslErrors());
        return nullptr;
    }
    auto fail = [&](const QString &message) {
        *error = message;
        const QString detail = takeOpenSslErrors();
        if (!detail.isEmpty())
            *error += QStringLiteral(" (%1)").arg(detail);
        SSL_CTX_free(context);
        return nullptr;
    };
    SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
    // As on the client side: no renegotiation, partial writes that carry on from a moved buffer,
    // one recv() per record.
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(context, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(context, 1);
    SSL_CTX_set_alpn_select_cb(context, &selectHttp11, nullptr);
    static const unsigned char sessionContext[] = "switchboard-proxy";
    SSL_CTX_set_session_id_context(context, sessionContext, sizeof sessionContext - 1);

    const QByteArray certificatePath = QFile::encodeName(certificateFile);
    const QByteArray keyPath = QFile::encodeName(keyFile);
    if (SSL_CTX_use_certificate_chain_file(context, certificatePath.constData()) != 1)
        return fail(QStringLiteral("The TLS certificate file %1 holds no PEM certificate OpenSSL can use.").arg(certificateFile));
    EVP_PKEY *key = nullptr;
    if (BIO *file = BIO_new_file(keyPath.constData(), "r")) {
        key = PEM_read_bio_PrivateKey(file, nullptr, &refusePassphrase, nullptr);
        BIO_free(file);
    }
    if (!key)
        return fail(QStringLiteral("The TLS key file %1 holds no PEM private key OpenSSL can use; an encrypted key "
                                   "needs its passphrase removed first (openssl pkey -in KEY -out PLAIN).")
                        .arg(keyFile));
    const bool taken = SSL_CTX_use_PrivateKey(context, key) == 1 && SSL_CTX_check_private_key(context) == 1;
    EVP_PKEY_free(key);
    if (!taken)
        return fail(QStringLiteral("The TLS key in %1 does not belong to the certificate in %2.").arg(keyFile, certificateFile));
    X509 *leaf = SSL_CTX_get0_certificate(context);
    return std::shared_ptr<const TlsServerContext>(new TlsServerContext(context, describe(leaf)));
}

TlsServerContext::TlsServerContext(ssl_ctx_st *context, TlsCertificateInfo certificate)
    : m_context(context), m_certificate(std::move(certificate))
{
}

TlsServerContext::~TlsServerContext()
{
    // Connections still open hold references of their own: OpenSSL frees it after the last one.
    SSL_CTX_free(m_context);
}

} // namespace sb
