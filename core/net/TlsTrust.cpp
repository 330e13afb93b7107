#include "net/TlsTrust.h"

#include "net/CurlGlobal.h"
#include "net/OpenSslErrors.h"

#include <QFile>

#include <curl/curl.h>
#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>

namespace sb {

namespace {

std::atomic<std::uint64_t> g_parsed{0};

struct SystemPaths {
    QByteArray file;
    QByteArray dir;
};

const SystemPaths &systemPaths()
{
    static const SystemPaths paths = [] {
        SystemPaths p;
        if (!CurlGlobal::ensureInitialized())
            return p;
        CURL *easy = curl_easy_init();
        if (!easy)
            return p;
        char *file = nullptr;
        char *dir = nullptr;
        if (curl_easy_getinfo(easy, CURLINFO_CAINFO, &file) == CURLE_OK && file)
            p.file = QByteArray(file);
        if (curl_easy_getinfo(easy, CURLINFO_CAPATH, &dir) == CURLE_OK && dir)
            p.dir = QByteArray(dir);
        curl_easy_cleanup(easy);
        return p;
    }();
    return paths;
}

// What identifies one version of a bundle file: a change of either means it is parsed again.
struct FileStamp {
    bool exists = false;
    long long size = 0;
    long long mtimeNs = 0;
    bool operator==(const FileStamp &other) const = default;
};

FileStamp stampOf(const QByteArray &file)
{
    FileStamp stamp;
    struct stat info {};
    if (file.isEmpty() || ::stat(file.constData(), &info) != 0)
        return stamp;
    stamp.exists = true;
    stamp.size = static_cast<long long>(info.st_size);
    stamp.mtimeNs = static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
    return stamp;
}

struct Entry {
    X509_STORE *store = nullptr; // one reference held by the cache
    FileStamp stamp;
    QString error; // why the last parse failed (store is null then)
};

class Cache {
public:
    // A new reference to the store for `key` (the caller frees it), or null with `error`.
    X509_STORE *acquire(const QByteArray &key, QString *error)
    {
        const bool system = key.isEmpty();
        const QByteArray file = system ? systemPaths().file : key;
        const FileStamp stamp = stampOf(file);
        std::lock_guard lock(m_mutex);
        Entry &entry = m_entries[key.toStdString()];
        if ((entry.store || !entry.error.isEmpty()) && entry.stamp == stamp) {
            if (!entry.store) {
                *error = entry.error;
                return nullptr;
            }
            X509_STORE_up_ref(entry.store);
            return entry.store;
        }
        // Parsed under the lock: a second worker needing the same bundle waits for this parse
        // instead of doing its own.
        QString why;
        X509_STORE *fresh = parse(system, file, stamp, &why);
        if (entry.store)
            X509_STORE_free(entry.store); // connections that hold it keep their own reference
        entry.store = fresh;
        entry.stamp = stamp;
        entry.error = why;
        if (!fresh) {
            *error = why;
            return nullptr;
        }
        X509_STORE_up_ref(fresh);
        return fresh;
    }

private:
    static X509_STORE *parse(bool system, const QByteArray &file, const FileStamp &stamp, QString *error)
    {
        X509_STORE *store = X509_STORE_new();
        if (!store) {
            *error = QStringLiteral("out of memory for a certificate store");
            return nullptr;
        }
        // As libcurl sets up its own stores: trusted certificates first, and a certificate in the
        // bundle may anchor a chain even when it is not a self-signed root (a pinned server or
        // intermediate certificate).
        X509_STORE_set_flags(store, X509_V_FLAG_TRUSTED_FIRST | X509_V_FLAG_PARTIAL_CHAIN);
        ERR_clear_error();
        if (!file.isEmpty() && !(system && !stamp.exists && !systemPaths().dir.isEmpty())) {
            if (!stamp.exists) {
                *error = QStringLiteral("the CA bundle \"%1\" does not exist or cannot be read").arg(QString::fromLocal8Bit(file));
                X509_STORE_free(store);
                return nullptr;
            }
            g_parsed.fetch_add(1, std::memory_order_relaxed);
            if (X509_STORE_load_file(store, file.constData()) != 1) {
                const QString detail = takeOpenSslErrors();
                *error = QStringLiteral("the CA bundle \"%1\" holds no certificate OpenSSL can read%2")
                             .arg(QString::fromLocal8Bit(file), detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(detail));
                X509_STORE_free(store);
                return nullptr;
            }
        }
        // The system's CA directory, when libcurl has one, is looked up lazily (one hashed file
        // per issuer a chain needs): cheap per connection, and what libcurl itself would add.
        if (system && !systemPaths().dir.isEmpty()) {
            if (X509_STORE_load_path(store, systemPaths().dir.constData()) != 1)
                spdlog::warn("TLS: the system CA directory {} could not be added: {}", systemPaths().dir.toStdString(),
                             takeOpenSslErrors().toStdString());
        }
        ERR_clear_error();
        return store;
    }

    std::mutex m_mutex;
    std::map<std::string, Entry> m_entries;
};

Cache &cache()
{
    static Cache *instance = new Cache; // never destroyed: connections may outlive static destructors
    return *instance;
}

} // namespace

bool TlsTrust::sharedStoresApply()
{
    static const bool apply = [] {
        if (!CurlGlobal::ensureInitialized())
            return false;
        const curl_version_info_data *info = curl_version_info(CURLVERSION_NOW);
        if (!info || !info->ssl_version)
            return false;
        // "OpenSSL/3.0.19": the backend, and the major version whose SSL_CTX this code can handle.
        const QByteArray backend(info->ssl_version);
        const QByteArray linked = QByteArrayLiteral("OpenSSL/") + QByteArray::number(OPENSSL_VERSION_MAJOR) + '.';
        const bool same = backend.startsWith(linked);
        if (!same)
            spdlog::info("TLS: libcurl uses {}; it loads CA bundles itself (this build shares stores with OpenSSL {} only)",
                         backend.toStdString(), OPENSSL_VERSION_MAJOR);
        return same;
    }();
    return apply;
}

bool TlsTrust::install(void *sslContext, const QByteArray &caBundle, QString *error)
{
    X509_STORE *store = cache().acquire(caBundle, error);
    if (!store)
        return false;
    SSL_CTX_set1_cert_store(static_cast<SSL_CTX *>(sslContext), store); // takes its own reference
    X509_STORE_free(store);
    return true;
}

void TlsTrust::preload(const QStringList &caBundles)
{
    if (!sharedStoresApply())
        return;
    for (const QString &bundle : caBundles) {
        QString ignored;
        if (X509_STORE *store = cache().acquire(QFile::encodeName(bundle), &ignored))
            X509_STORE_free(store);
    }
}

std::uint64_t TlsTrust::bundlesParsed()
{
    return g_parsed.load(std::memory_order_relaxed);
}

QByteArray TlsTrust::systemCaFile()
{
    return systemPaths().file;
}

QByteArray TlsTrust::systemCaPath()
{
    return systemPaths().dir;
}

} // namespace sb
