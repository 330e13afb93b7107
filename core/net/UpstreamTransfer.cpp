#include "net/UpstreamTransfer.h"

#include "common/SecretMask.h"
#include "model/ProviderConfig.h"
#include "net/EasyHandlePool.h"
#include "net/TlsTrust.h"

#include <curl/curl.h>

#include <QFile>
#include <QStringList>
#include <QUrlQuery>

#include <algorithm>
#include <array>
#include <utility>

static_assert(CURL_ERROR_SIZE == 256, "m_errorBuffer is sized for CURL_ERROR_SIZE");

namespace sb {

namespace {

// Header and query names whose values are credentials. Broad on purpose: a false positive only
// hides a harmless value from a log line.
bool isSecretName(QByteArrayView name)
{
    const QByteArray lower = name.toByteArray().toLower();
    for (const char *word : {"auth", "key", "token", "secret", "cookie", "signature", "password"}) {
        if (lower.contains(word))
            return true;
    }
    return false;
}

QString maskHeaderValue(const QByteArray &value)
{
    // Keep the scheme ("Bearer ") readable; it tells which auth style went out.
    const qsizetype space = value.indexOf(' ');
    if (space > 0 && space < 16)
        return QString::fromLatin1(value.left(space + 1)) + maskSecret(QString::fromLatin1(value.mid(space + 1)));
    return maskSecret(QString::fromLatin1(value));
}

// QUrl::toEncoded cost ~4,500 instructions a request for what is nearly always the URL of the last
// request or one before; the last few of this thread are remembered.
QByteArray encodedUrl(const QUrl &url)
{
    thread_local std::array<std::pair<QUrl, QByteArray>, 4> recent;
    thread_local std::size_t next = 0;
    for (const auto &[known, encoded] : recent)
        if (!encoded.isEmpty() && known == url)
            return encoded;
    QByteArray encoded = url.toEncoded();
    recent[next] = {url, encoded};
    next = (next + 1) % recent.size();
    return encoded;
}

QUrl redactedUrl(QUrl url)
{
    url.setUserInfo(QString());
    if (url.hasQuery()) {
        QUrlQuery query(url);
        auto items = query.queryItems(QUrl::FullyDecoded);
        for (auto &item : items) {
            if (isSecretName(item.first.toUtf8()))
                item.second = maskSecret(item.second);
        }
        query.setQueryItems(items);
        url.setQuery(query);
    }
    return url;
}

} // namespace

void applyProviderTls(TransferOptions &options, const ProviderConfig &provider)
{
    options.caBundlePath = provider.caBundle;
    options.verifyTls = !provider.tlsSkipVerify;
    options.allowHttp2 = provider.http2;
}

QString transferErrorName(TransferError error)
{
    switch (error) {
    case TransferError::None: return QStringLiteral("none");
    case TransferError::ConnectFailed: return QStringLiteral("connect_failed");
    case TransferError::NameNotResolved: return QStringLiteral("name_not_resolved");
    case TransferError::TlsFailed: return QStringLiteral("tls_failed");
    case TransferError::Timeout: return QStringLiteral("timeout");
    case TransferError::Reset: return QStringLiteral("reset");
    case TransferError::Cancelled: return QStringLiteral("cancelled");
    case TransferError::TooLarge: return QStringLiteral("too_large");
    case TransferError::Other: return QStringLiteral("other");
    }
    return QStringLiteral("other");
}

UpstreamTransfer::UpstreamTransfer(quint64 id, const UpstreamRequest &request, const TransferOptions &options,
                                   TransferCallbacks callbacks, std::shared_ptr<EasyHandlePool> pool)
    : m_id(id), m_request(request), m_options(options), m_callbacks(std::move(callbacks)), m_pool(std::move(pool))
{
}

UpstreamTransfer::~UpstreamTransfer()
{
    // The handle is reset (or freed) before the header list and buffers it points to go.
    if (m_easy && m_pool)
        m_pool->give(m_easy);
    else if (m_easy)
        curl_easy_cleanup(m_easy);
    curl_slist_free_all(m_headerList);
}

bool UpstreamTransfer::setUp(QString *error)
{
    const QString scheme = m_request.url.scheme().toLower();
    if (!m_request.url.isValid() || (scheme != QLatin1String("http") && scheme != QLatin1String("https"))) {
        *error = QStringLiteral("The upstream URL \"%1\" is not an http or https URL; check the channel's base URL.")
                     .arg(redactedUrl(m_request.url).toString());
        return false;
    }
    m_easy = m_pool ? m_pool->take() : curl_easy_init();
    if (!m_easy) {
        *error = QStringLiteral("libcurl could not create a transfer (out of memory?)");
        return false;
    }

    m_url = encodedUrl(m_request.url);
    CURL *e = m_easy;
    curl_easy_setopt(e, CURLOPT_PRIVATE, this);
    curl_easy_setopt(e, CURLOPT_URL, m_url.constData());
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, m_errorBuffer);
    // Verbose output would print the Authorization header; keep it off whatever the environment says.
    curl_easy_setopt(e, CURLOPT_VERBOSE, 0L);
    // Worker threads must never receive SIGALRM/SIGPIPE from libcurl.
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    // Long-lived streams through NATs and proxies: keep-alive probes find dead peers.
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
    // Bytes pass through as the provider sent them: no Accept-Encoding of our own, no decoding.
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, static_cast<char *>(nullptr));
    curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_options.connectTimeout.count()));
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(m_options.totalTimeout.count()));
    if (m_options.allowHttp2) {
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
        // Concurrent requests to an h2 server share its one connection instead of racing to open
        // more. Only over TLS: on plain http libcurl 7.88 never learns the connection cannot
        // multiplex, and every new transfer would queue behind the first one until it ends. And
        // not to an origin known to answer in HTTP/1.1 (pipeWait false): while no connection to
        // it is up, libcurl would let the waiting transfers open theirs one at a time.
        if (scheme == QLatin1String("https") && pipeWait)
            curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    } else {
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    }
    if (!m_options.proxyUrl.isEmpty()) {
        m_proxy = m_options.proxyUrl.toUtf8();
        curl_easy_setopt(e, CURLOPT_PROXY, m_proxy.constData());
        // A channel's own egress applies to every host it talks to; the environment's no_proxy
        // list belongs to the environment's proxy.
        curl_easy_setopt(e, CURLOPT_NOPROXY, "");
    }
    curl_easy_setopt(e, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
    if (!m_options.caBundlePath.isEmpty())
        m_caBundle = QFile::encodeName(m_options.caBundlePath);
    if (!m_options.verifyTls) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
        curl_easy_setopt(e, CURLOPT_CAINFO, static_cast<char *>(nullptr));
        curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<char *>(nullptr));
    } else if (TlsTrust::sharedStoresApply()) {
        // libcurl loads no CA file of its own; each new connection gets the shared store of this
        // bundle (TlsTrust) from the context callback. libcurl reuses a connection only for a
        // transfer with the same CA file and directory, so a custom bundle's path goes in as the
        // directory: OpenSSL looks into a directory only lazily, and never into this one, since
        // the callback replaces the whole store. A connection verified against one bundle then
        // never carries a transfer that trusts another.
        curl_easy_setopt(e, CURLOPT_CAINFO, static_cast<char *>(nullptr));
        curl_easy_setopt(e, CURLOPT_CAPATH, m_caBundle.isEmpty() ? static_cast<const char *>(nullptr) : m_caBundle.constData());
        curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, &UpstreamTransfer::sslContextCallback);
        curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, this);
    } else if (!m_caBundle.isEmpty()) {
        // Another TLS backend: libcurl reads the file, and caches it per multi handle as long as
        // no CA directory is set beside it.
        curl_easy_setopt(e, CURLOPT_CAINFO, m_caBundle.constData());
        curl_easy_setopt(e, CURLOPT_CAPATH, static_cast<char *>(nullptr));
    }

    const QByteArray method = m_request.method.toUpper();
    if (method == "GET" && m_request.body.isEmpty()) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else if (method == "HEAD") {
        curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
    } else {
        // The body lives in m_request for as long as the easy handle does.
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(m_request.body.size()));
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, m_request.body.constData());
        if (method != "POST")
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, m_request.method.constData());
    }

    *error = headerProblem(m_request.headers);
    if (!error->isEmpty())
        return false;
    bool hasContentType = false;
    for (const auto &[name, value] : m_request.headers.fields()) {
        hasContentType = hasContentType || name.compare("content-type", Qt::CaseInsensitive) == 0;
        // "Name;" is libcurl's spelling of a header with an empty value ("Name:" would delete it).
        const QByteArray line = value.isEmpty() ? name + ';' : name + ": " + value;
        m_headerList = curl_slist_append(m_headerList, line.constData());
    }
    // Suppress what libcurl would add on its own: the 1 s "Expect: 100-continue" wait for large
    // bodies, and a form Content-Type on bodies the caller did not label.
    m_headerList = curl_slist_append(m_headerList, "Expect:");
    if (!hasContentType)
        m_headerList = curl_slist_append(m_headerList, "Content-Type:");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, m_headerList);

    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &UpstreamTransfer::headerCallback);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, this);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &UpstreamTransfer::writeCallback);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, this);
    return true;
}

QString UpstreamTransfer::headerProblem(const HttpHeaders &headers)
{
    // One pass a field: three contains() each cost three calls into Qt, for every header of every
    // request.
    const auto breaksLine = [](const QByteArray &text) {
        return std::any_of(text.cbegin(), text.cend(), [](char c) { return c == '\r' || c == '\n' || c == '\0'; });
    };
    for (const auto &[name, value] : headers.fields()) {
        // A key pasted with its trailing newline would otherwise split into a second header line.
        if (name.isEmpty() || breaksLine(name) || breaksLine(value)) {
            return QStringLiteral("The upstream request header \"%1\" contains a line break; check the "
                                  "configured value (an API key pasted with a newline?)")
                .arg(QString::fromLatin1(name).simplified());
        }
    }
    return {};
}

std::size_t UpstreamTransfer::headerCallback(char *data, std::size_t size, std::size_t count, void *self)
{
    const std::size_t bytes = size * count;
    static_cast<UpstreamTransfer *>(self)->onHeaderLine(QByteArrayView(data, static_cast<qsizetype>(bytes)));
    return bytes;
}

void UpstreamTransfer::onHeaderLine(QByteArrayView line)
{
    if (m_headersComplete)
        return; // trailers of a chunked or h2 response: not part of the headers the caller saw
    line = line.trimmed();
    if (line.startsWith("HTTP/")) {
        // A new status line starts a new header block: after a 1xx interim response, say.
        m_headers = HttpHeaders();
        const QByteArray statusLine = line.toByteArray();
        const QList<QByteArray> parts = statusLine.split(' ');
        m_status = parts.size() >= 2 ? parts.at(1).toInt() : 0;
        return;
    }
    if (line.isEmpty()) {
        if (m_status >= 200) {
            HttpHeaders complete = std::exchange(m_headers, {}); // recordHead assigns m_headers
            recordHead(m_status, std::move(complete));
        }
        return;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return;
    m_headers.add(line.first(colon).trimmed().toByteArray(), line.sliced(colon + 1).trimmed().toByteArray());
}

std::size_t UpstreamTransfer::writeCallback(char *data, std::size_t size, std::size_t count, void *self)
{
    const std::size_t bytes = size * count;
    // 0 makes libcurl end the transfer with CURLE_WRITE_ERROR.
    return static_cast<UpstreamTransfer *>(self)->recordBody(QByteArrayView(data, static_cast<qsizetype>(bytes))) ? bytes : 0;
}

int UpstreamTransfer::sslContextCallback(CURL *, void *sslContext, void *self)
{
    auto *transfer = static_cast<UpstreamTransfer *>(self);
    return TlsTrust::install(sslContext, transfer->m_caBundle, &transfer->m_trustError) ? CURLE_OK : CURLE_SSL_CACERT_BADFILE;
}

void UpstreamTransfer::recordHead(int status, HttpHeaders &&headers)
{
    m_status = status;
    m_headers = std::move(headers);
    m_headersComplete = true;
    if (m_onActivity)
        m_onActivity();
}

bool UpstreamTransfer::recordBody(QByteArrayView piece)
{
    m_received += piece.size();
    if (m_options.maxResponseBytes > 0 && m_received > m_options.maxResponseBytes) {
        m_tooLarge = true;
        return false;
    }
    m_pending.append(piece);
    if (m_onActivity)
        m_onActivity();
    return true;
}

QString UpstreamTransfer::tooLargeMessage() const
{
    return QStringLiteral("The upstream response is larger than the %1-byte limit").arg(m_options.maxResponseBytes);
}

bool UpstreamTransfer::takeHeaders(int *status, HttpHeaders *headers)
{
    if (!m_headersComplete || m_headersTaken)
        return false;
    m_headersTaken = true;
    *status = m_status;
    *headers = std::move(m_headers);
    return true;
}

bool UpstreamTransfer::hasWholeAnswer() const
{
    if (!m_easy || !m_headersComplete)
        return false;
    curl_off_t length = -1; // the final response's Content-Length, -1 when it sent none
    curl_easy_getinfo(m_easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    return length >= 0 && m_received == length;
}

bool UpstreamTransfer::endedBeforeItsBodyWent() const
{
    if (m_status != 0 || m_received != 0 || m_request.body.isEmpty() || !m_easy)
        return false;
    curl_off_t uploaded = 0;
    curl_easy_getinfo(m_easy, CURLINFO_SIZE_UPLOAD_T, &uploaded);
    return uploaded < static_cast<curl_off_t>(m_request.body.size());
}

QByteArray UpstreamTransfer::takeData()
{
    return std::exchange(m_pending, QByteArray());
}

std::pair<TransferError, QString> UpstreamTransfer::classify(int curlCode) const
{
    const auto code = static_cast<CURLcode>(curlCode);
    if (code == CURLE_OK)
        return {TransferError::None, QString()};
    QString detail = QString::fromUtf8(m_errorBuffer).trimmed();
    if (detail.isEmpty())
        detail = QString::fromUtf8(curl_easy_strerror(code));
    if (m_tooLarge)
        return {TransferError::TooLarge, tooLargeMessage()};
    if (!m_trustError.isEmpty())
        return {TransferError::TlsFailed, QStringLiteral("TLS with the upstream failed: %1; check the provider's CA bundle").arg(m_trustError)};
    switch (code) {
    case CURLE_COULDNT_CONNECT:
        return {TransferError::ConnectFailed, QStringLiteral("Could not connect to the upstream: %1").arg(detail)};
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return {TransferError::NameNotResolved, QStringLiteral("Could not resolve the upstream's host name: %1").arg(detail)};
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
        return {TransferError::TlsFailed, QStringLiteral("TLS with the upstream failed: %1").arg(detail)};
    case CURLE_OPERATION_TIMEDOUT: {
        // Timed out before the connection was up: the request never left, which makes it safe to
        // retry elsewhere whatever it was.
        curl_off_t connectMicros = 0;
        curl_easy_getinfo(m_easy, CURLINFO_CONNECT_TIME_T, &connectMicros);
        if (connectMicros == 0)
            return {TransferError::ConnectFailed, QStringLiteral("Could not connect to the upstream: %1").arg(detail)};
        return {TransferError::Timeout, QStringLiteral("The upstream did not finish in time: %1").arg(detail)};
    }
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
        return {TransferError::Reset, QStringLiteral("The upstream connection broke: %1").arg(detail)};
    case CURLE_FILESIZE_EXCEEDED:
        return {TransferError::TooLarge, detail};
    default:
        return {TransferError::Other, detail};
    }
}

QString UpstreamTransfer::describeForLog() const
{
    QStringList headers;
    for (const auto &[name, value] : m_request.headers.fields()) {
        const QString shown = isSecretName(name) ? maskHeaderValue(value) : QString::fromLatin1(value);
        headers << QString::fromLatin1(name) + QStringLiteral(": ") + shown;
    }
    QString line = QString::fromLatin1(m_request.method) + QLatin1Char(' ') + redactedUrl(m_request.url).toString();
    if (!m_options.proxyUrl.isEmpty())
        line += QStringLiteral(" via ") + redactedUrl(QUrl(m_options.proxyUrl)).toString();
    return line + QStringLiteral(" [") + headers.join(QStringLiteral(", ")) + QLatin1Char(']');
}

} // namespace sb
