#include "net/HttpResponseParser.h"

#include "net/PlainHead.h"

#include <algorithm>
#include <utility>

namespace sb {

HttpResponseParser::HttpResponseParser()
{
    expectResponse(false);
}

const llhttp_settings_t &HttpResponseParser::settings()
{
    static const llhttp_settings_t settings = [] {
        llhttp_settings_t s;
        llhttp_settings_init(&s);
        s.on_message_begin = &HttpResponseParser::onMessageBegin;
        s.on_header_field = &HttpResponseParser::onHeaderField;
        s.on_header_value = &HttpResponseParser::onHeaderValue;
        s.on_header_value_complete = &HttpResponseParser::onHeaderValueComplete;
        s.on_headers_complete = &HttpResponseParser::onHeadersComplete;
        s.on_body = &HttpResponseParser::onBody;
        s.on_message_complete = &HttpResponseParser::onMessageComplete;
        return s;
    }();
    return settings;
}

HttpResponseParser &HttpResponseParser::self(llhttp_t *parser)
{
    return *static_cast<HttpResponseParser *>(parser->data);
}

void HttpResponseParser::expectResponse(bool toHead)
{
    llhttp_init(&m_parser, HTTP_RESPONSE, &settings());
    m_parser.data = this;
    m_toHead = toHead;
    m_started = m_complete = m_keepAlive = m_refused = m_fed = false;
    m_bodyLeft = -1;
    m_head.restart();
    m_headers = HttpHeaders();
    m_error.clear();
}

int HttpResponseParser::onMessageBegin(llhttp_t *parser)
{
    HttpResponseParser &p = self(parser);
    p.m_headers = HttpHeaders(); // an interim 1xx response's headers are not the final ones
    p.m_head.restart();
    return 0;
}

int HttpResponseParser::onHeaderField(llhttp_t *parser, const char *at, std::size_t length)
{
    self(parser).m_head.appendName(at, length);
    return 0;
}

int HttpResponseParser::onHeaderValue(llhttp_t *parser, const char *at, std::size_t length)
{
    self(parser).m_head.appendValue(at, length);
    return 0;
}

int HttpResponseParser::onHeaderValueComplete(llhttp_t *parser)
{
    HttpResponseParser &p = self(parser);
    p.m_head.addTo(p.m_headers);
    return 0;
}

int HttpResponseParser::onHeadersComplete(llhttp_t *parser)
{
    HttpResponseParser &p = self(parser);
    const int status = llhttp_get_status_code(parser);
    if (status == 101) {
        p.m_error = QStringLiteral("The upstream switched protocols (HTTP 101), which was not asked for");
        return -1;
    }
    if (status < 100) {
        // llhttp reads any three digits; one below 100 is no status, and it would take the body
        // of an interim response that is not one.
        p.m_error = QStringLiteral("The upstream sent a malformed HTTP response: status %1").arg(status, 3, 10, QLatin1Char('0'));
        return -1;
    }
    // 100 Continue, 103 Early Hints: a final response follows on the same connection. An interim
    // response ends at its blank line whatever its fields say (RFC 9112, 6.3); llhttp would read a
    // Content-Length's worth of body after it (1: none follows).
    if (status < 200)
        return 1;
    p.m_head.remember(p.m_headers);
    p.m_sink->responseHead(status, std::move(p.m_headers));
    return p.m_toHead ? 1 : 0; // 1: no body follows
}

int HttpResponseParser::onBody(llhttp_t *parser, const char *at, std::size_t length)
{
    HttpResponseParser &p = self(parser);
    if (p.m_sink->responseBody(QByteArrayView(at, static_cast<qsizetype>(length))))
        return 0;
    p.m_refused = true;
    return -1;
}

int HttpResponseParser::onMessageComplete(llhttp_t *parser)
{
    HttpResponseParser &p = self(parser);
    if (llhttp_get_status_code(parser) < 200)
        return 0; // the interim response ended; parsing goes on with the final one
    p.m_complete = true;
    p.m_keepAlive = llhttp_should_keep_alive(parser) != 0;
    return HPE_PAUSED; // stop right after it: what follows belongs to no request of ours
}

HttpResponseParser::Result HttpResponseParser::failed(const QString &text)
{
    if (m_error.isEmpty())
        m_error = text;
    return Result::Error;
}

HttpResponseParser::Result HttpResponseParser::feed(const char *data, std::size_t size, Sink &sink,
                                                    std::size_t *consumed)
{
    if (m_complete || !m_error.isEmpty()) { // an error stays one, as llhttp's do
        *consumed = 0;
        return m_complete ? Result::Complete : Result::Error;
    }
    m_started = m_started || size > 0;
    if (m_bodyLeft >= 0)
        return readKnownLength(data, size, sink, consumed);
    if (!m_fed) {
        Result result = Result::NeedMore;
        if (readWholeHead(data, size, sink, &result, consumed))
            return result;
        m_fed = size > 0;
    }
    m_sink = &sink;
    const llhttp_errno_t error = llhttp_execute(&m_parser, data, size);
    m_sink = nullptr;
    if (error == HPE_OK) {
        *consumed = size;
        return Result::NeedMore;
    }
    if (error == HPE_PAUSED && m_complete) {
        *consumed = static_cast<std::size_t>(llhttp_get_error_pos(&m_parser) - data);
        return Result::Complete;
    }
    *consumed = 0;
    if (m_refused)
        return failed(QStringLiteral("the response body was refused"));
    return failed(QStringLiteral("The upstream sent a malformed HTTP response: %1")
                      .arg(QString::fromLatin1(llhttp_get_error_reason(&m_parser))));
}

bool HttpResponseParser::readWholeHead(const char *data, std::size_t size, Sink &sink, Result *result, std::size_t *consumed)
{
    if (m_toHead)
        return false;
    const char *const end = data + size;
    // The status line: "HTTP/1.1 ", three digits of a status that has a body by its length, and an
    // optional reason.
    const char *lineEnd = plainhead::lineEnd(data, end);
    const QByteArrayView line(data, lineEnd ? lineEnd - data : 0);
    if (line.size() < 12 || !line.startsWith("HTTP/1.1 ") || (line.size() > 12 && line[12] != ' ') || !plainhead::isPlain(line.sliced(12)))
        return false;
    int status = 0;
    for (qsizetype i = 9; i < 12; ++i) {
        if (line[i] < '0' || line[i] > '9')
            return false;
        status = status * 10 + (line[i] - '0');
    }
    if (status < 200 || status > 599 || status == 204 || status == 304)
        return false;

    m_headers = HttpHeaders();
    plainhead::Fields fields;
    if (!plainhead::readFields(lineEnd + 2, end, m_head, m_headers, &fields) || fields.contentLength < 0)
        return false;

    m_head.remember(m_headers);
    sink.responseHead(status, std::move(m_headers));
    m_bodyLeft = fields.contentLength;
    const std::size_t bodyStart = std::size_t(fields.end - data);
    std::size_t bodyConsumed = 0;
    *result = readKnownLength(data + bodyStart, size - bodyStart, sink, &bodyConsumed);
    *consumed = *result == Result::Complete ? bodyStart + bodyConsumed : *result == Result::Error ? 0 : size;
    return true;
}

HttpResponseParser::Result HttpResponseParser::readKnownLength(const char *data, std::size_t size, Sink &sink,
                                                               std::size_t *consumed)
{
    const std::size_t piece = std::min(size, std::size_t(m_bodyLeft));
    if (piece > 0 && !sink.responseBody(QByteArrayView(data, qsizetype(piece)))) {
        *consumed = 0;
        m_refused = true;
        return failed(QStringLiteral("the response body was refused"));
    }
    m_bodyLeft -= qint64(piece);
    *consumed = piece;
    if (m_bodyLeft > 0)
        return Result::NeedMore;
    m_complete = true;
    m_keepAlive = true;
    return Result::Complete;
}

HttpResponseParser::Result HttpResponseParser::finish(Sink &sink)
{
    if (m_complete)
        return Result::Complete;
    if (!m_started)
        return failed(QStringLiteral("the connection closed before any response arrived"));
    if (m_bodyLeft >= 0)
        return failed(QStringLiteral("the connection closed before the response ended"));
    m_sink = &sink;
    const llhttp_errno_t error = llhttp_finish(&m_parser);
    m_sink = nullptr;
    if ((error == HPE_OK || error == HPE_PAUSED) && m_complete) {
        m_keepAlive = false;
        return Result::Complete;
    }
    return failed(QStringLiteral("the connection closed before the response ended"));
}

} // namespace sb
