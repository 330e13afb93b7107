#pragma once

#include "common/HttpHeaders.h"
#include "net/RepeatedHead.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <llhttp.h>

#include <cstddef>

namespace sb {

// Incremental parser of the responses on one HTTP/1.1 client connection (llhttp in response
// mode): the status and headers once they are complete, the body in pieces as they arrive
// (chunked framing removed), interim 1xx responses skipped, and the end of each response found by
// its Content-Length, its last chunk, or the connection's close. One response at a time: call
// expectResponse() before each request goes out.
//
// The usual answer of an API upstream (a 2xx-5xx in HTTP/1.1 with a Content-Length, its whole head
// in the first bytes read) is read without llhttp: its head in one pass over lines, its body by its
// length. That path takes only what it can read exactly as llhttp does and hands anything else
// (a head cut across reads, chunked framing, a 1xx, 204 or 304, Connection other than keep-alive,
// any byte outside plain visible ASCII) to llhttp from the first byte, so the two never disagree:
// the fuzz target feeds the same bytes whole and cut into pieces and compares.
class HttpResponseParser {
public:
    // Where the parts of a response go.
    class Sink {
    public:
        // The final (non-1xx) response's status line and headers are complete.
        virtual void responseHead(int status, HttpHeaders &&headers) = 0;
        // A piece of its body; false refuses it and stops parsing with an error.
        virtual bool responseBody(QByteArrayView piece) = 0;

    protected:
        ~Sink() = default;
    };

    enum class Result {
        NeedMore, // everything was consumed and the response goes on
        Complete, // the response ended; bytes after it are not part of it
        Error,    // not HTTP, or a Sink refused a piece: errorText() says which
    };

    HttpResponseParser();
    HttpResponseParser(const HttpResponseParser &) = delete;
    HttpResponseParser &operator=(const HttpResponseParser &) = delete;

    // Readies the parser for the response to the next request. `toHead`: a response to HEAD has no
    // body whatever its Content-Length says.
    void expectResponse(bool toHead);

    // Parses received bytes. On Complete, `*consumed` is where the response ended in `data`.
    Result feed(const char *data, std::size_t size, Sink &sink, std::size_t *consumed);
    // The peer closed the connection: Complete when that is how this response ends (no length and
    // not chunked), Error when it cut the response short. Nothing received at all is an Error too.
    Result finish(Sink &sink);

    // Some byte of the response arrived (so a request that failed was seen by the server).
    bool started() const { return m_started; }
    // After Complete: the connection may carry the next request.
    bool keepAlive() const { return m_keepAlive; }
    QString errorText() const { return m_error; }

private:
    static const llhttp_settings_t &settings();
    static HttpResponseParser &self(llhttp_t *parser);
    static int onMessageBegin(llhttp_t *parser);
    static int onHeaderField(llhttp_t *parser, const char *at, std::size_t length);
    static int onHeaderValue(llhttp_t *parser, const char *at, std::size_t length);
    static int onHeaderValueComplete(llhttp_t *parser);
    static int onHeadersComplete(llhttp_t *parser);
    static int onBody(llhttp_t *parser, const char *at, std::size_t length);
    static int onMessageComplete(llhttp_t *parser);
    Result failed(const QString &text);
    // The fast path: true when it took the response's head (and what of its body `data` holds).
    bool readWholeHead(const char *data, std::size_t size, Sink &sink, Result *result, std::size_t *consumed);
    Result readKnownLength(const char *data, std::size_t size, Sink &sink, std::size_t *consumed);

    llhttp_t m_parser;
    Sink *m_sink = nullptr; // set for the duration of feed() and finish()
    bool m_toHead = false;
    bool m_started = false;
    bool m_complete = false;
    bool m_keepAlive = false;
    bool m_refused = false; // a Sink said no
    bool m_fed = false;     // llhttp has seen bytes of this response: it reads the rest
    qint64 m_bodyLeft = -1; // read by the fast path: body bytes still to come (-1: llhttp reads it)
    RepeatedHead m_head;
    HttpHeaders m_headers;
    QString m_error;
};

} // namespace sb
