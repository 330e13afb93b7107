#pragma once

#include "net/HttpRequest.h"
#include "net/HttpServerLimits.h"
#include "net/RepeatedHead.h"

#include <llhttp.h>

#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <optional>

namespace sb {

// Reads the requests on one client connection from its bytes, one at a time: llhttp with the
// server's checks and limits (RFC 9112's Host rules, the methods served, header and body sizes,
// Expect), chunked bodies de-chunked.
//
// The usual request of an API client (HTTP/1.1, keep-alive, its whole head and body in the bytes at
// hand, a Content-Length or no body) is read without llhttp, in one pass over its lines. That path
// takes only what it reads exactly as llhttp and the checks would, and hands anything else to
// llhttp from the first byte, so the two never disagree: the fuzz target reads the same bytes whole
// and byte by byte (which only llhttp can read) and compares. The request path is where request
// smuggling lives; a difference between the two would be one.
class HttpRequestReader {
public:
    // The connection's timers follow what is being read.
    class Listener {
    public:
        virtual void headStarted() = 0;   // the first byte of a request's head
        virtual void bodyProgressed() = 0; // its body began or a piece of it arrived
        virtual void requestEnded() = 0;   // a request was read whole

    protected:
        ~Listener() = default;
    };

    struct Failure {
        int status;
        QString message;
        QString code;
    };

    enum class Result {
        NeedMore, // every byte was taken and no request is complete yet
        Request,  // a request is complete (takeRequest()); bytes after `*consumed` are not part of it
        Failed,   // not a request this server takes: failure() says what to answer; it stays so
    };

    HttpRequestReader(const HttpServerLimits &limits, Listener &listener);
    HttpRequestReader(const HttpRequestReader &) = delete;
    HttpRequestReader &operator=(const HttpRequestReader &) = delete;

    Result read(QByteArrayView bytes, qsizetype *consumed);
    HttpRequest takeRequest();
    const Failure &failure() const { return *m_failure; }

    // A request's head or body is being read.
    bool inMessage() const { return m_inMessage; }
    // The request being read (its method and version, for an error answered mid-way).
    const HttpRequest &partial() const { return m_current; }
    // The request being read asked for 100 Continue before sending its body.
    bool wantsContinue() const { return m_wantsContinue; }
    void continueAnswered() { m_wantsContinue = false; }

private:
    static const llhttp_settings_t &settings();
    static HttpRequestReader &self(llhttp_t *parser);
    static int onMessageBegin(llhttp_t *parser);
    static int onUrl(llhttp_t *parser, const char *at, size_t length);
    static int onHeaderField(llhttp_t *parser, const char *at, size_t length);
    static int onHeaderFieldComplete(llhttp_t *parser);
    static int onHeaderValue(llhttp_t *parser, const char *at, size_t length);
    static int onHeaderValueComplete(llhttp_t *parser);
    static int onHeadersComplete(llhttp_t *parser);
    static int onBody(llhttp_t *parser, const char *at, size_t length);
    static int onMessageComplete(llhttp_t *parser);

    int fail(Failure failure);
    bool addHeaderBytes(qint64 bytes);
    int addFieldBytes(qint64 bytes); // a field's bytes: past the limit a 431
    // The server's checks of a complete head, shared by both paths.
    std::optional<Failure> checkHead(uint8_t method, int httpMajor, std::optional<std::uint64_t> contentLength) const;
    int headersComplete();
    // The one-pass path: true when it read a whole request from `bytes`.
    bool readWhole(QByteArrayView bytes, qsizetype *consumed);
    Result readWithLlhttp(QByteArrayView bytes, qsizetype *consumed);

    const HttpServerLimits m_limits;
    Listener &m_listener;
    llhttp_t m_parser;
    HttpRequest m_current;
    RepeatedHead m_head;
    qint64 m_headerBytes = 0;
    int m_headerCount = 0;
    bool m_inMessage = false;
    bool m_ready = false;
    bool m_wantsContinue = false;
    // llhttp stands where a message begins (it read nothing of one, and the last one kept the
    // connection open): only then can a request be read around it.
    bool m_llhttpAtStart = true;
    std::optional<Failure> m_failure;
};

} // namespace sb
