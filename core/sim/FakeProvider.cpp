#include "sim/FakeProvider.h"

#include "sim/ChunkSplitter.h"
#include "sim/MalformedWire.h"
#include "sim/SimText.h"
#include "net/HttpHandler.h"
#include "net/HttpServer.h"
#include "net/ResponseWriter.h"
#include "net/TlsServerContext.h"

#include <QPointer>

#include <cmath>
#include <limits>

namespace sb::sim {

namespace {

// Below this a timer per token costs more than it shows: tokens are sent in batches instead.
constexpr double kMinTickMs = 4.0;

class Exchange : public QObject {
public:
    Exchange(std::shared_ptr<FakeProvider::Shared> shared, SimRequest request, std::shared_ptr<ResponseWriter> writer,
             FaultDecision fault, quint64 id, QObject *parent)
        : QObject(parent), m_shared(std::move(shared)), m_request(std::move(request)), m_writer(std::move(writer)),
          m_fault(fault), m_id(QByteArray::number(id)), m_splitter(m_shared->spec.chunking, m_shared->random)
    {
        const ProviderSpec &spec = m_shared->spec;
        std::vector<QByteArray> text = SimText::tokens(spec.language, spec.completionTokens, id);
        if (!m_request.partial.isEmpty()) // asked to go on with an answer of its passage: the rest of it
            if (std::optional<std::vector<QByteArray>> rest =
                    SimText::continuation(spec.language, spec.completionTokens, m_request.partial, spec.continuationOverlap))
                text = *std::move(rest);
        m_answer = SimAnswer::compose(spec, m_request, std::move(text), id);
        const double ttft = spec.ttftMs.sample(m_shared->random) + fault.extraTtftMs;
        const double tps = std::max(0.01, spec.tokensPerSecond.sample(m_shared->random) * fault.tokenRateFactor);
        m_ttftRealMs = m_shared->clock.toRealMs(ttft);
        m_intervalRealMs = m_shared->clock.toRealMs(1000.0 / tps);
        m_stopAt = m_answer.size();
        if (fault.error == SimError::MidStreamError || fault.error == SimError::StreamCut || fault.error == SimError::StreamStall)
            m_stopAt = breakPoint();
        if (fault.error == SimError::ErrorAfterStart)
            m_stopAt = 0;
        QPointer<Exchange> self(this);
        m_writer->onClosed([self] {
            if (self)
                self->deleteLater();
        });
    }

    void run()
    {
        if (m_fault.error == SimError::Hang)
            return; // nothing, until the client gives up (onClosed) or the provider stops
        after(m_request.stream ? m_ttftRealMs : m_ttftRealMs + m_intervalRealMs * m_stopAt,
              [this] { m_request.stream ? firstToken() : wholeBody(); });
    }

private:
    // How many of the answer's pieces go out before the fault breaks the stream.
    int breakPoint() const
    {
        switch (m_fault.inside) {
        case FaultSpec::Inside::ToolCall:
            return m_answer.halfwayThrough(SimAnswer::Kind::ToolArguments);
        case FaultSpec::Inside::Reasoning:
            return m_answer.halfwayThrough(SimAnswer::Kind::Reasoning);
        case FaultSpec::Inside::Anywhere:
            break;
        }
        return m_fault.afterChars >= 0 ? m_answer.piecesCovering(m_fault.afterChars) : std::max(1, m_answer.size() / 2);
    }
    bool breaksAtAPoint() const { return m_fault.afterChars >= 0 || m_fault.inside != FaultSpec::Inside::Anywhere; }

    void record(bool complete)
    {
        if (!m_request.stream && !complete)
            return;
        FakeProvider::SentAnswer sent{m_request.partial, {}, complete, {}};
        const int end = complete ? m_answer.size() : m_next;
        for (int i = 0; i < end; ++i) {
            const SimAnswer::Piece &piece = m_answer.pieces[static_cast<std::size_t>(i)];
            if (piece.kind == SimAnswer::Kind::Text)
                sent.text += piece.bytes;
            else if (piece.kind == SimAnswer::Kind::ToolArguments && complete)
                sent.toolArguments += piece.bytes;
        }
        m_shared->recordAnswer(std::move(sent));
    }

    QByteArray piece(int index) const { return m_shared->wire.streamPiece(m_request, m_id, m_answer, index); }

    template <class F>
    void after(double realMs, F f)
    {
        m_shared->clock.clock().callAfter(std::chrono::milliseconds(std::lround(std::max(0.0, realMs))), this, f);
    }

    HttpHeaders headers(HttpHeaders h) const
    {
        h.add("x-sim-provider", m_shared->spec.name.toUtf8());
        h.add("x-request-id", m_id);
        return h;
    }

    void emitBytes(const QByteArray &bytes)
    {
        for (const QByteArray &piece : m_splitter.feed(bytes))
            m_writer->write(piece);
    }

    void done(bool clean)
    {
        if (m_writer && m_writer->isOpen()) {
            const QByteArray rest = m_splitter.flush();
            if (!rest.isEmpty())
                m_writer->write(rest);
            m_writer->finish();
        }
        if (clean)
            ++m_shared->succeeded;
        m_writer.reset();
        deleteLater();
    }

    void cut()
    {
        // Abandoning a started response makes the server cut the connection: the client gets no end marker.
        if (m_writer && m_writer->isOpen()) {
            const QByteArray rest = m_splitter.flush();
            if (!rest.isEmpty())
                m_writer->write(rest);
        }
        m_writer.reset();
        deleteLater();
    }

    void wholeBody()
    {
        if (!m_writer->isOpen())
            return done(false);
        SimReply reply = m_shared->wire.complete(m_request, m_id, m_answer);
        if (m_fault.error == SimError::StreamCut) {
            m_writer->startStream(200, headers(reply.headers));
            m_writer->write(reply.body.left(reply.body.size() / 2));
            return cut();
        }
        m_writer->send(200, headers(reply.headers), reply.body);
        record(true);
        done(true);
    }

    void firstToken()
    {
        if (!m_writer->isOpen())
            return done(false);
        m_writer->startStream(200, headers(m_shared->wire.streamHeaders()));
        QByteArray first = m_shared->wire.streamHead(m_request, m_id, m_answer);
        if (m_stopAt > 0)
            first += piece(0);
        emitBytes(first);
        m_next = m_stopAt > 0 ? 1 : 0;
        m_tick = std::max(kMinTickMs, m_intervalRealMs);
        m_perTick = std::max(1, static_cast<int>(std::lround(m_tick / std::max(m_intervalRealMs, 1e-3))));
        next();
    }

    void next()
    {
        if (m_next >= m_stopAt)
            return ending();
        after(m_tick, [this] {
            if (!m_writer->isOpen())
                return done(false);
            QByteArray batch;
            for (int i = 0; i < m_perTick && m_next < m_stopAt; ++i, ++m_next)
                batch += piece(m_next);
            emitBytes(batch);
            next();
        });
    }

    void ending()
    {
        switch (m_fault.error) {
        case SimError::MidStreamError:
        case SimError::ErrorAfterStart:
            record(false);
            emitBytes(m_shared->wire.midStreamError(m_request, m_id, m_next));
            return done(false);
        case SimError::StreamCut:
            record(false);
            if (breaksAtAPoint() && m_next < m_answer.size()) {
                // Cut inside the next event (inside a character, where it is multi-byte): none of it counts.
                const QByteArray event = piece(m_next);
                emitBytes(event.left(event.size() / 2));
            }
            return cut();
        case SimError::StreamStall:
            record(false);
            if (const QByteArray rest = m_splitter.flush(); !rest.isEmpty())
                m_writer->write(rest);
            return; // and nothing more, until the client gives up (onClosed) or the provider stops
        default:
            record(true);
            emitBytes(m_shared->wire.streamTail(m_request, m_id, m_answer));
            return done(true);
        }
    }

    std::shared_ptr<FakeProvider::Shared> m_shared;
    SimRequest m_request;
    std::shared_ptr<ResponseWriter> m_writer;
    FaultDecision m_fault;
    QByteArray m_id;
    ChunkSplitter m_splitter;
    SimAnswer m_answer;
    double m_ttftRealMs = 0;
    double m_intervalRealMs = 0;
    double m_tick = kMinTickMs;
    int m_perTick = 1;
    int m_stopAt = 0;
    int m_next = 0;
};

class Handler : public HttpHandler {
public:
    explicit Handler(std::shared_ptr<FakeProvider::Shared> shared) : m_shared(std::move(shared)) {}

    void handle(const HttpRequest &http, std::shared_ptr<ResponseWriter> response) override
    {
        Shared &s = *m_shared;
        ++s.requests;
        const SimRequest request = s.wire.parse(http.method, http.path, http.query, http.headers, http.body);
        const double now = s.clock.now();
        if (s.timeline.servesWrongPath(now)) { // nothing of the API lives here, probes included
            if (request.kind == SimRequest::Kind::Probe) {
                ++s.probes;
                ++s.probesFailed;
            }
            ++s.injected[static_cast<std::size_t>(SimError::WrongPath)];
            return reply(response, DialectWire::wrongPath());
        }
        switch (request.kind) {
        case SimRequest::Kind::Probe: {
            ++s.probes;
            const bool down = s.timeline.isDown(now);
            if (down)
                ++s.probesFailed;
            return reply(response, s.wire.probe(s.spec.models, down));
        }
        case SimRequest::Kind::Token:
            return reply(response, s.tokens.exchange(http.query, http.body, now));
        case SimRequest::Kind::Unknown: {
            SimReply r = s.wire.httpError(404);
            r.status = 404;
            return reply(response, r);
        }
        case SimRequest::Kind::Chat:
        case SimRequest::Kind::Embeddings:
            break;
        }
        QByteArray key = request.apiKey;
        if (s.wire.dialect() == Dialect::Ernie) {
            // An access token this provider granted stands for the API key it was granted to.
            switch (s.tokens.check(request.apiKey, now, &key)) {
            case TokenIssuer::Check::Valid:
                break;
            case TokenIssuer::Check::NotIssued:
                if (s.tokens.isApiKey(key)) { // the API key sent where its token belongs
                    ++s.keyRejected;
                    return reply(response, s.wire.unknownKey());
                }
                break;
            case TokenIssuer::Check::Revoked:
                ++s.tokensRefused;
                return reply(response, s.wire.unknownKey()); // 110, access token invalid
            case TokenIssuer::Check::Expired: {
                ++s.tokensRefused;
                SimReply r;
                r.headers.add("content-type", "application/json");
                r.body = QByteArrayLiteral(R"({"error_code":111,"error_msg":"Access token expired"})");
                return reply(response, r);
            }
            }
        }
        if (request.kind == SimRequest::Kind::Embeddings) {
            // Keys and outages apply as to chat: an embeddings call rotates keys and fails over too.
            ++s.embeddings;
            double wait = 0;
            switch (s.keys.admit(key, now, &wait)) {
            case KeyLimiter::Verdict::UnknownKey:
                ++s.keyRejected;
                return reply(response, s.wire.unknownKey());
            case KeyLimiter::Verdict::RateLimited:
                ++s.keyRejected;
                return reply(response, s.wire.keyRateLimited(realSeconds(wait)));
            case KeyLimiter::Verdict::Admitted:
                break;
            }
            if (s.timeline.isDown(now))
                return reply(response, s.wire.httpError(503));
            return reply(response, s.wire.embeddings(request));
        }
        ++s.chat;
        double retryAfter = 0;
        switch (s.keys.admit(key, now, &retryAfter)) {
        case KeyLimiter::Verdict::UnknownKey:
            ++s.keyRejected;
            return reply(response, s.wire.unknownKey());
        case KeyLimiter::Verdict::RateLimited:
            ++s.keyRejected;
            return reply(response, s.wire.keyRateLimited(realSeconds(retryAfter)));
        case KeyLimiter::Verdict::Admitted:
            break;
        }
        const FaultDecision fault = s.timeline.decide(now, s.random);
        if (fault.error != SimError::None)
            ++s.injected[static_cast<std::size_t>(fault.error)];
        if (fault.tokenRateFactor < 1.0)
            ++s.injected[static_cast<std::size_t>(SimError::SlowTokens)];
        const quint64 id = s.nextId++;
        switch (fault.error) {
        case SimError::Http500:
            return reply(response, s.wire.httpError(500));
        case SimError::Http503:
            return reply(response, s.wire.httpError(503));
        case SimError::Http429:
            return reply(response, s.wire.httpError(429));
        case SimError::Http429RetryAfter:
            return reply(response, s.wire.httpError(429, realSeconds(fault.retryAfterSeconds)));
        case SimError::Http429Hint:
            return reply(response, s.wire.rateLimitHint(realSeconds(fault.retryAfterSeconds)));
        case SimError::BodyRateLimit:
            if (request.stream)
                return streamOnly(response, s.wire.firstEventRateLimit(request, QByteArray::number(id)));
            return reply(response, s.wire.bodyRateLimit());
        case SimError::FirstEventError:
            if (request.stream)
                return streamOnly(response, s.wire.firstEventError(request, QByteArray::number(id)));
            {
                SimReply r = s.wire.httpError(500);
                r.status = 200; // an error body behind a 200
                return reply(response, r);
            }
        case SimError::MalformedAnswer:
            if (request.stream) // the JSON where the events should be, under an event-stream header
                return streamOnly(response, MalformedWire(s.wire).answerWithoutAnswer(request, QByteArray::number(id)));
            return reply(response, jsonReply(MalformedWire(s.wire).answerWithoutAnswer(request, QByteArray::number(id))));
        case SimError::EmptyObject:
            return reply(response, jsonReply(QByteArrayLiteral("{}")));
        case SimError::NotJson: {
            SimReply r;
            r.headers.add("content-type", "text/html");
            r.body = MalformedWire::htmlPage();
            return reply(response, r);
        }
        case SimError::TruncatedAnswer:
            if (request.stream) // the first half of the events, then a clean end without the end marker
                return streamOnly(response, wholeStream(request, id, false));
            {
                SimReply r = s.wire.complete(request, QByteArray::number(id), SimText::join(answerTokens(id)), s.spec.completionTokens);
                r.body.truncate(r.body.size() / 2); // a Content-Length that matches: only the JSON is cut
                return reply(response, r);
            }
        case SimError::SseAnswer:
            if (!request.stream) {
                SimReply r;
                r.headers = s.wire.streamHeaders();
                r.body = wholeStream(request, id, true);
                return reply(response, r);
            }
            break; // a stream request gets the stream it asked for
        case SimError::EmptyStream:
            if (request.stream)
                return streamOnly(response, MalformedWire(s.wire).emptyStream(request, QByteArray::number(id)));
            return reply(response, jsonReply(MalformedWire(s.wire).emptyAnswer(request, QByteArray::number(id))));
        case SimError::DisagreeingError:
            if (request.stream)
                return streamOnly(response, MalformedWire(s.wire).disagreeingErrorEvent(QByteArray::number(id)));
            return reply(response, jsonReply(MalformedWire(s.wire).disagreeingErrorBody(QByteArray::number(id))));
        case SimError::WrongPath:
            return reply(response, DialectWire::wrongPath());
        case SimError::UnknownModel:
            return reply(response, s.wire.unknownModel(request.model));
        case SimError::BodyInvalidRequest:
            if (request.stream)
                return streamOnly(response, MalformedWire(s.wire).invalidRequestEvent(QByteArray::number(id)));
            return reply(response, jsonReply(MalformedWire(s.wire).invalidRequestBody(QByteArray::number(id))));
        case SimError::ProviderParamError: // a stream request too: the refusal comes before any event
            return reply(response, s.wire.providerParamError());
        case SimError::ConnectionReset:
        case SimError::ConnectRefused: {
            // A TCP reset before any answer: the client sees a broken connection, not an HTTP reply.
            response->abort();
            return;
        }
        default:
            break;
        }
        auto *exchange = new Exchange(m_shared, request, std::move(response), fault, id, &m_context);
        exchange->run();
    }

private:
    using Shared = FakeProvider::Shared;

    int realSeconds(double scenarioSeconds) const
    {
        // Retry-After is whole seconds on the wire; at x10 a scenario's 2 s becomes 1 s, never 0.
        return std::max(1, static_cast<int>(std::ceil(scenarioSeconds / m_shared->clock.timeScale())));
    }

    std::vector<QByteArray> answerTokens(quint64 id) const
    {
        return SimText::tokens(m_shared->spec.language, m_shared->spec.completionTokens, id);
    }

    // The answer as one event stream, sent at once: whole, or its first half without the end.
    QByteArray wholeStream(const SimRequest &request, quint64 id, bool whole) const
    {
        const DialectWire &wire = m_shared->wire;
        const QByteArray idText = QByteArray::number(id);
        const std::vector<QByteArray> tokens = answerTokens(id);
        const int count = whole ? static_cast<int>(tokens.size()) : std::max(1, static_cast<int>(tokens.size()) / 2);
        QByteArray out = wire.streamHead(request, idText);
        for (int i = 0; i < count; ++i)
            out += wire.streamDelta(request, idText, tokens.at(static_cast<std::size_t>(i)), i);
        if (whole)
            out += wire.streamTail(request, idText, count);
        return out;
    }

    static SimReply jsonReply(const QByteArray &body)
    {
        SimReply r;
        r.headers.add("content-type", "application/json");
        r.body = body;
        return r;
    }

    HttpHeaders providerHeaders(HttpHeaders h) const
    {
        h.add("x-sim-provider", m_shared->spec.name.toUtf8());
        return h;
    }

    void reply(const std::shared_ptr<ResponseWriter> &response, const SimReply &r)
    {
        response->send(r.status, providerHeaders(r.headers), r.body);
    }

    void streamOnly(const std::shared_ptr<ResponseWriter> &response, const QByteArray &event)
    {
        response->startStream(200, providerHeaders(m_shared->wire.streamHeaders()));
        response->write(event);
        response->finish();
    }

    std::shared_ptr<Shared> m_shared;
    QObject m_context; // parent of this worker's exchanges, created on the worker thread
};

} // namespace

void FakeProvider::Shared::recordAnswer(SentAnswer answer)
{
    std::lock_guard lock(answersMutex);
    answers.push_back(std::move(answer));
    if (answers.size() > kSentAnswersKept)
        answers.pop_front();
}

FakeProvider::Shared::Shared(ProviderSpec s, const ScenarioClock &c, Random &r)
    : spec(std::move(s)), wire(dialectFromString(spec.dialect).value_or(Dialect::OpenAiCompat), c.clock()), timeline(spec.faults),
      keys(spec.keys), tokens(spec.keys, spec.tokenLifetimeSeconds), clock(c), random(r)
{
}

FakeProvider::FakeProvider(ProviderSpec spec, const ScenarioClock &clock, Random &random, int workerCount, QObject *parent)
    : QObject(parent)
    , m_shared(std::make_shared<Shared>(std::move(spec), clock, random))
    , m_workerCount(std::max(1, workerCount))
    , m_listenerTimer(clock.clock().createTimer([this] { checkListener(); }))
{
}

FakeProvider::~FakeProvider()
{
    stop();
}

bool FakeProvider::start(QString *error)
{
    if (m_running)
        return true;
    const ProviderSpec &spec = m_shared->spec;
    if (spec.servesTls() && !m_tls) {
        QString why;
        m_tls = TlsServerContext::load(spec.tlsCertFile, spec.tlsKeyFile, &why);
        if (!m_tls) {
            if (error)
                *error = QStringLiteral("provider \"%1\" cannot serve HTTPS: %2").arg(spec.name, why);
            return false;
        }
    }
    m_port = spec.port;
    m_running = true;
    if (m_shared->timeline.refusesConnections(m_shared->clock.now())) {
        if (m_port == 0) {
            // A port must exist before it can refuse: take one, then close it.
            if (!openListener(error))
                return m_running = false;
            closeListener();
        }
    } else if (!openListener(error)) {
        return m_running = false;
    }
    checkListener();
    return true;
}

void FakeProvider::stop()
{
    m_running = false;
    m_listenerTimer->stop();
    closeListener();
}

bool FakeProvider::isListening() const
{
    return m_server && m_server->isListening();
}

QString FakeProvider::baseUrl() const
{
    // By name over HTTPS, as hosted providers are reached (the certificate names localhost).
    const QString root = m_shared->spec.servesTls() ? QStringLiteral("https://localhost:%1").arg(m_port)
                                                    : QStringLiteral("http://127.0.0.1:%1").arg(m_port);
    switch (m_shared->wire.dialect()) {
    case Dialect::OpenAiCompat:
    case Dialect::Anthropic:
        return root + QStringLiteral("/v1");
    case Dialect::Gemini:
        return root + QStringLiteral("/v1beta");
    case Dialect::DashScope:
        return root + QStringLiteral("/api/v1");
    case Dialect::Ernie:
        return root;
    }
    return root;
}

FakeProvider::Stats FakeProvider::stats() const
{
    Stats s;
    s.requests = m_shared->requests;
    s.chat = m_shared->chat;
    s.probes = m_shared->probes;
    s.probesFailed = m_shared->probesFailed;
    s.succeeded = m_shared->succeeded;
    s.keyRejected = m_shared->keyRejected;
    s.embeddings = m_shared->embeddings;
    s.listenerClosures = m_listenerClosures;
    const TokenIssuer::Stats tokens = m_shared->tokens.stats();
    s.tokenExchanges = tokens.exchanges;
    s.tokensGranted = tokens.granted;
    s.tokensRefused = m_shared->tokensRefused;
    for (std::size_t i = 0; i < s.injected.size(); ++i)
        s.injected[i] = m_shared->injected[i];
    {
        std::lock_guard lock(m_shared->answersMutex);
        s.answers.assign(m_shared->answers.begin(), m_shared->answers.end());
    }
    return s;
}

bool FakeProvider::openListener(QString *error)
{
    std::shared_ptr<Shared> shared = m_shared;
    m_server = std::make_unique<HttpServer>(
        m_shared->clock.clock(), HttpServerLimits{}, [shared](int) { return std::make_unique<Handler>(shared); }, m_workerCount);
    if (m_tls)
        m_server->setTls(m_tls);
    if (!m_server->listen(QHostAddress::LocalHost, m_port, error)) {
        m_server.reset();
        return false;
    }
    m_port = m_server->serverPort();
    return true;
}

void FakeProvider::closeListener()
{
    if (!m_server)
        return;
    m_server->shutdown(std::chrono::milliseconds(0));
    m_server.reset();
}

void FakeProvider::checkListener()
{
    if (!m_running)
        return;
    const double now = m_shared->clock.now();
    const bool refuse = m_shared->timeline.refusesConnections(now);
    if (refuse && m_server) {
        closeListener();
        ++m_listenerClosures;
    } else if (!refuse && !m_server) {
        QString error;
        openListener(&error); // the port may be briefly taken; the next check retries
    }
    double next = m_shared->timeline.nextChange(now);
    if (!refuse && !m_server)
        next = now + m_shared->clock.timeScale() * 0.05; // retry in 50 ms of real time
    if (std::isfinite(next))
        m_listenerTimer->start(std::chrono::milliseconds(static_cast<int>(std::ceil(m_shared->clock.toRealMs((next - now) * 1000.0))) + 1));
}

} // namespace sb::sim
