#pragma once

#include "net/DeadlineTimer.h"
#include "net/HttpHandler.h"
#include "net/HttpRequest.h"
#include "net/HttpRequestReader.h"
#include "net/HttpServerLimits.h"
#include "net/TcpStream.h"

#include <QHostAddress>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace sb {

class ResponseWriter;
class TlsServerContext;
struct ServerCounters;

// One client connection on a worker thread: reads its requests (HttpRequestReader), hands them to
// the handler one at a time in arrival order (pipelined requests wait their turn), writes the
// responses, and enforces the limits and timeouts. Deletes itself (deleteLater) once closed.
class HttpConnection : public QObject, private TcpStream::Listener, private HttpRequestReader::Listener {
    Q_OBJECT
public:
    // `tls` null: plain HTTP; else HTTPS with its certificate.
    HttpConnection(const Clock &clock, qintptr descriptor, quint64 id, int workerIndex, const HttpServerLimits &limits,
                   HttpHandler *handler, ServerCounters &counters, std::shared_ptr<const TlsServerContext> tls,
                   QObject *parent = nullptr);
    ~HttpConnection() override;

    bool isOpen() const { return !m_tornDown; }
    quint64 id() const { return m_id; }
    // Graceful shutdown: an idle connection closes now, a busy one after its current response.
    void startDrain();
    // Cuts the connection now (shutdown deadline); an unfinished response's onClosed callbacks run.
    void abort();

signals:
    void closed(sb::HttpConnection *connection);

private:
    friend class ResponseWriter;
    enum class Phase { None, Idle, Headers, Body, Closing, Linger };
    struct Pending {
        HttpRequest request;
        int errorStatus = 0; // non-zero: answer this error and close instead of calling the handler
        QString errorMessage;
        QString errorCode;
    };

    void headStarted() override;
    void bodyProgressed() override;
    void requestEnded() override;

    void streamReadable() override;
    void streamWritten() override;
    void streamClosed() override;
    void onTimeout();
    void parseInput();
    void failParse(const HttpRequestReader::Failure &failure);
    void pump();
    void dispatch(Pending pending);
    void updateTimer();
    void setPhase(Phase phase);
    void maybeSendContinue();

    // Used by ResponseWriter.
    bool writeResponseBytes(quint64 sequence, const QByteArray &bytes);
    bool closesAfterResponse(quint64 sequence, bool needsClose);
    void responseComplete(quint64 sequence, int status);
    void responseAbandoned(quint64 sequence);
    qint64 bufferedBytes() const;
    void resetConnection(quint64 sequence);

    void writeRaw(const QByteArray &bytes);
    void closeGracefully();
    void startLinger();
    void teardown(bool clientGone);

    TcpStream *m_socket;
    const quint64 m_id;
    const int m_workerIndex;
    const HttpServerLimits m_limits;
    HttpHandler *m_handler;
    ServerCounters &m_counters;
    QHostAddress m_peer;

    HttpRequestReader m_reader;
    QByteArray m_input;
    bool m_stopParsing = false;

    // At most maxPipelinedRequests, nearly always one: a vector keeps its room between requests,
    // where a deque of elements this large (232 bytes) allocated a block for every two.
    std::vector<Pending> m_queue;
    bool m_responseActive = false;
    bool m_activeStarted = false;
    bool m_activeKeepAlive = true;
    bool m_activeHead = false;
    int m_activeHttpMinor = 1;
    bool m_closeAfterResponse = false;
    quint64 m_activeSequence = 0;
    quint64 m_nextSequence = 0;
    std::weak_ptr<ResponseWriter> m_activeWriter;

    DeadlineTimer m_timer; // the current phase's timeout
    Phase m_phase = Phase::None;
    bool m_draining = false;
    bool m_closing = false;
    bool m_lingering = false;
    bool m_tornDown = false;
    bool m_pumping = false;
    bool m_pumpAgain = false;
};

} // namespace sb
