#include "net/HttpRequestReader.h"

#include "net/HttpSyntax.h"
#include "net/PlainHead.h"

#include <algorithm>
#include <array>
#include <utility>

namespace sb {

namespace {

struct ServedMethod {
    QByteArrayView name;
    llhttp_method_t method;
};

constexpr std::array<ServedMethod, 7> kServedMethods{{{"GET", HTTP_GET},
                                                      {"HEAD", HTTP_HEAD},
                                                      {"POST", HTTP_POST},
                                                      {"PUT", HTTP_PUT},
                                                      {"DELETE", HTTP_DELETE},
                                                      {"PATCH", HTTP_PATCH},
                                                      {"OPTIONS", HTTP_OPTIONS}}};

bool isServedMethod(uint8_t method)
{
    for (const ServedMethod &served : kServedMethods)
        if (served.method == method)
            return true;
    return false;
}

// The method's name; the usual ones are static arrays a request shares instead of allocating.
QByteArray methodName(uint8_t method)
{
    switch (method) {
    case HTTP_GET: return QByteArrayLiteral("GET");
    case HTTP_POST: return QByteArrayLiteral("POST");
    case HTTP_OPTIONS: return QByteArrayLiteral("OPTIONS");
    default: return llhttp_method_name(static_cast<llhttp_method_t>(method));
    }
}

void setTarget(HttpRequest &request, QByteArray target)
{
    request.target = std::move(target);
    const qsizetype question = request.target.indexOf('?');
    request.path = question < 0 ? request.target : request.target.left(question);
    request.query = question < 0 ? QByteArray() : request.target.mid(question + 1);
}

} // namespace

HttpRequestReader::HttpRequestReader(const HttpServerLimits &limits, Listener &listener)
    : m_limits(limits)
    , m_listener(listener)
{
    llhttp_init(&m_parser, HTTP_REQUEST, &settings());
    m_parser.data = this;
}

const llhttp_settings_t &HttpRequestReader::settings()
{
    static const llhttp_settings_t settings = [] {
        llhttp_settings_t s;
        llhttp_settings_init(&s);
        s.on_message_begin = &HttpRequestReader::onMessageBegin;
        s.on_url = &HttpRequestReader::onUrl;
        s.on_header_field = &HttpRequestReader::onHeaderField;
        s.on_header_field_complete = &HttpRequestReader::onHeaderFieldComplete;
        s.on_header_value = &HttpRequestReader::onHeaderValue;
        s.on_header_value_complete = &HttpRequestReader::onHeaderValueComplete;
        s.on_headers_complete = &HttpRequestReader::onHeadersComplete;
        s.on_body = &HttpRequestReader::onBody;
        s.on_message_complete = &HttpRequestReader::onMessageComplete;
        return s;
    }();
    return settings;
}

HttpRequestReader &HttpRequestReader::self(llhttp_t *parser)
{
    return *static_cast<HttpRequestReader *>(parser->data);
}

HttpRequestReader::Result HttpRequestReader::read(QByteArrayView bytes, qsizetype *consumed)
{
    *consumed = 0;
    if (m_failure)
        return Result::Failed;
    if (!m_inMessage && m_llhttpAtStart && readWhole(bytes, consumed))
        return Result::Request;
    return readWithLlhttp(bytes, consumed);
}

HttpRequest HttpRequestReader::takeRequest()
{
    m_ready = false;
    HttpRequest request = std::move(m_current);
    m_current.clearMessage();
    return request;
}

// ---- the one-pass path ------------------------------------------------------------------------

bool HttpRequestReader::readWhole(QByteArrayView bytes, qsizetype *consumed)
{
    const char *const data = bytes.data();
    const char *const end = data + bytes.size();
    // The request line: a method served, an origin-form target and HTTP/1.1, one space apart.
    const char *const lineAt = plainhead::lineEnd(data, end);
    if (!lineAt)
        return false;
    const QByteArrayView line(data, lineAt - data);
    const qsizetype space = line.indexOf(' ');
    if (space <= 0)
        return false;
    const QByteArrayView name = line.first(space);
    const ServedMethod *method = nullptr;
    for (const ServedMethod &served : kServedMethods)
        if (served.name == name)
            method = &served;
    constexpr QByteArrayView version(" HTTP/1.1");
    const QByteArrayView rest = line.sliced(space + 1);
    if (!method || !rest.endsWith(version))
        return false;
    const QByteArrayView target = rest.first(rest.size() - version.size());
    if (!isPlainOriginForm(target)) // an absolute URI, '*', a fragment: llhttp's
        return false;

    HttpHeaders headers;
    plainhead::Fields fields;
    if (!plainhead::readFields(lineAt + 2, end, m_head, headers, &fields))
        return false;
    const qint64 length = std::max<qint64>(fields.contentLength, 0);
    if (fields.count > m_limits.maxHeaderCount || target.size() + fields.bytes > m_limits.maxHeaderBytes
        || end - fields.end < length)
        return false;
    HttpRequest &request = m_current;
    request.method = methodName(method->method);
    request.httpMinor = 1;
    request.headers = std::move(headers);
    const std::optional<std::uint64_t> declared =
        fields.contentLength < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(fields.contentLength));
    if (checkHead(method->method, 1, declared)) { // llhttp reads it again and answers as it says
        request.clearMessage();
        return false;
    }
    m_head.appendTarget(target.data(), std::size_t(target.size()));
    setTarget(request, m_head.takeTarget());
    m_head.remember(request.headers);
    if (length > 0)
        request.body = QByteArray(fields.end, length);
    request.keepAlive = true;
    *consumed = fields.end + length - data;
    m_ready = true;
    m_listener.requestEnded();
    return true;
}

// ---- llhttp ------------------------------------------------------------------------------------

HttpRequestReader::Result HttpRequestReader::readWithLlhttp(QByteArrayView bytes, qsizetype *consumed)
{
    const char *const begin = bytes.data();
    const llhttp_errno_t error = llhttp_execute(&m_parser, begin, static_cast<size_t>(bytes.size()));
    if (error == HPE_OK) {
        *consumed = bytes.size();
        return Result::NeedMore;
    }
    if (error == HPE_PAUSED || error == HPE_PAUSED_UPGRADE) {
        *consumed = llhttp_get_error_pos(&m_parser) - begin;
        if (error == HPE_PAUSED) {
            llhttp_resume(&m_parser);
        } else {
            llhttp_reset(&m_parser); // an Upgrade we do not perform: the request was answered as plain HTTP
            m_llhttpAtStart = true;
        }
        return m_ready ? Result::Request : Result::NeedMore;
    }
    if (!m_failure) {
        if (error == HPE_PAUSED_H2_UPGRADE)
            m_failure = Failure{505, QStringLiteral("HTTP/2 is not supported; use HTTP/1.1."), QStringLiteral("http_version_not_supported")};
        else if (error == HPE_INVALID_METHOD)
            m_failure = Failure{400, QStringLiteral("The request method is not valid HTTP."), QStringLiteral("invalid_method")};
        else
            m_failure = Failure{400,
                                QStringLiteral("The request is not valid HTTP/1.1 (%1).")
                                    .arg(QString::fromLatin1(llhttp_get_error_reason(&m_parser))),
                                QStringLiteral("bad_request")};
    }
    return Result::Failed;
}

int HttpRequestReader::fail(Failure failure)
{
    if (!m_failure)
        m_failure = std::move(failure);
    return HPE_USER;
}

bool HttpRequestReader::addHeaderBytes(qint64 bytes)
{
    m_headerBytes += bytes;
    return m_headerBytes <= m_limits.maxHeaderBytes;
}

int HttpRequestReader::addFieldBytes(qint64 bytes)
{
    if (addHeaderBytes(bytes))
        return HPE_OK;
    return fail({431, QStringLiteral("The request headers are larger than the server accepts (%1 bytes).").arg(m_limits.maxHeaderBytes),
                 QStringLiteral("request_header_fields_too_large")});
}

int HttpRequestReader::onMessageBegin(llhttp_t *parser)
{
    HttpRequestReader &r = self(parser);
    r.m_current.clearMessage();
    r.m_head.restart();
    r.m_headerBytes = 0;
    r.m_headerCount = 0;
    r.m_inMessage = true;
    r.m_wantsContinue = false;
    r.m_llhttpAtStart = false;
    r.m_listener.headStarted();
    return HPE_OK;
}

int HttpRequestReader::onUrl(llhttp_t *parser, const char *at, size_t length)
{
    HttpRequestReader &r = self(parser);
    r.m_head.appendTarget(at, length);
    if (!r.addHeaderBytes(static_cast<qint64>(length)))
        return r.fail({414, QStringLiteral("The request URL is longer than the server accepts (%1 bytes).").arg(r.m_limits.maxHeaderBytes),
                       QStringLiteral("uri_too_long")});
    return HPE_OK;
}

int HttpRequestReader::onHeaderField(llhttp_t *parser, const char *at, size_t length)
{
    HttpRequestReader &r = self(parser);
    r.m_head.appendName(at, length);
    return r.addFieldBytes(static_cast<qint64>(length));
}

int HttpRequestReader::onHeaderFieldComplete(llhttp_t *parser)
{
    HttpRequestReader &r = self(parser);
    if (!r.m_head.nameRepeats(r.m_current.headers.size()) && !isHttpToken(r.m_head.name()))
        return r.fail({400, QStringLiteral("A request header name is not a valid token."), QStringLiteral("invalid_header")});
    if (++r.m_headerCount > r.m_limits.maxHeaderCount)
        return r.fail({431, QStringLiteral("The request has more header fields than the server accepts (%1).").arg(r.m_limits.maxHeaderCount),
                       QStringLiteral("request_header_fields_too_large")});
    return r.addFieldBytes(4); // ": " and CRLF count toward the header block too
}

int HttpRequestReader::onHeaderValue(llhttp_t *parser, const char *at, size_t length)
{
    HttpRequestReader &r = self(parser);
    r.m_head.appendValue(at, length);
    return r.addFieldBytes(static_cast<qint64>(length));
}

int HttpRequestReader::onHeaderValueComplete(llhttp_t *parser)
{
    HttpRequestReader &r = self(parser);
    r.m_head.addTo(r.m_current.headers);
    return HPE_OK;
}

int HttpRequestReader::onHeadersComplete(llhttp_t *parser)
{
    return self(parser).headersComplete() == HPE_OK ? 0 : -1;
}

std::optional<HttpRequestReader::Failure> HttpRequestReader::checkHead(uint8_t method, int httpMajor,
                                                                       std::optional<std::uint64_t> contentLength) const
{
    const HttpRequest &request = m_current;
    if (httpMajor != 1)
        return Failure{505, QStringLiteral("Only HTTP/1.0 and HTTP/1.1 are supported."), QStringLiteral("http_version_not_supported")};
    // RFC 9112 3.2: an HTTP/1.1 request without Host, with more than one, or with one that is no
    // host is a 400. A request that names no host is one a client got wrong, or one written by hand
    // to find what a server accepts; answering it anyway hides the first and helps the second.
    int hostFields = 0;
    QByteArrayView host;
    for (const auto &[name, value] : request.headers.fields())
        if (sameFieldName(name, "Host")) {
            ++hostFields;
            host = value;
        }
    if (hostFields == 0 && request.httpMinor >= 1)
        return Failure{400, QStringLiteral("An HTTP/1.1 request must have a Host header (RFC 9112, section 3.2)."), QStringLiteral("missing_host")};
    if (hostFields > 1)
        return Failure{400, QStringLiteral("The request has more than one Host header; send exactly one."), QStringLiteral("invalid_host")};
    if (hostFields == 1 && !isValidHostValue(host))
        return Failure{400, QStringLiteral("The Host header is not a host name or address with an optional port."), QStringLiteral("invalid_host")};
    if (!isServedMethod(method))
        return Failure{501, QStringLiteral("The method %1 is not supported by this server.").arg(QString::fromLatin1(request.method)),
                       QStringLiteral("method_not_supported")};
    if (contentLength && *contentLength > static_cast<std::uint64_t>(m_limits.maxBodyBytes))
        return Failure{413, QStringLiteral("The request body is larger than the server accepts (%1 bytes).").arg(m_limits.maxBodyBytes),
                       QStringLiteral("request_too_large")};
    const QByteArray expect = request.headers.value("Expect");
    if (!expect.isEmpty() && !sameFieldName(expect, "100-continue"))
        return Failure{417, QStringLiteral("Only the expectation 100-continue is supported."), QStringLiteral("expectation_failed")};
    return std::nullopt;
}

int HttpRequestReader::headersComplete()
{
    m_head.remember(m_current.headers);
    setTarget(m_current, m_head.takeTarget());
    const uint8_t method = llhttp_get_method(&m_parser);
    m_current.method = methodName(method);
    m_current.httpMinor = llhttp_get_http_minor(&m_parser);
    const std::optional<std::uint64_t> contentLength =
        (m_parser.flags & F_CONTENT_LENGTH) ? std::optional<std::uint64_t>(m_parser.content_length) : std::nullopt;
    if (std::optional<Failure> failure = checkHead(method, llhttp_get_http_major(&m_parser), contentLength))
        return fail(std::move(*failure));
    if ((m_parser.flags & F_CHUNKED) || m_parser.content_length > 0) {
        // Sent once no earlier response is being written; the body waits for it.
        m_wantsContinue = m_current.httpMinor >= 1 && !m_current.headers.value("Expect").isEmpty();
        m_listener.bodyProgressed();
    }
    return HPE_OK;
}

int HttpRequestReader::onBody(llhttp_t *parser, const char *at, size_t length)
{
    HttpRequestReader &r = self(parser);
    // Chunked bodies have no declared length: the limit is checked as they arrive.
    if (r.m_current.body.size() + static_cast<qint64>(length) > r.m_limits.maxBodyBytes)
        return r.fail({413, QStringLiteral("The request body is larger than the server accepts (%1 bytes).").arg(r.m_limits.maxBodyBytes),
                       QStringLiteral("request_too_large")});
    r.m_current.body.append(at, static_cast<qsizetype>(length));
    r.m_listener.bodyProgressed(); // the body timeout is a gap between pieces, not a total
    return HPE_OK;
}

int HttpRequestReader::onMessageComplete(llhttp_t *parser)
{
    HttpRequestReader &r = self(parser);
    r.m_current.keepAlive = llhttp_should_keep_alive(parser) != 0;
    r.m_ready = true;
    r.m_inMessage = false;
    r.m_wantsContinue = false;
    r.m_llhttpAtStart = r.m_current.keepAlive; // after a last request llhttp reads no more
    r.m_listener.requestEnded();
    // Stop after each message, so the caller knows exactly which bytes belong to it and can stop
    // reading when enough pipelined requests wait.
    return HPE_PAUSED;
}

} // namespace sb
