// The fake providers and the load driver over real loopback sockets: wire formats per dialect,
// scripted faults as a client sees them, per-key limits, refused connections, and a measured outage.

#include "sim/DrillRunner.h"
#include "sim/FakeProvider.h"
#include "sim/LoadDriver.h"
#include "sim/ScenarioClock.h"

#include "net/UpstreamClient.h"
#include "providers/ProviderRegistry.h"
#include "stream/SseParser.h"

#include "FakeClock.h"
#include "TestCertificate.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <functional>

using namespace sb;
using namespace sb::sim;

namespace {

constexpr int kWaitMs = 30000; // the machine may be busy; nothing here asserts on speed

struct Fetch {
    bool done = false;
    int status = 0;
    HttpHeaders headers;
    QByteArray body;
    TransferError error = TransferError::None;
};

// A provider on a FakeClock makes its pauses (time to first token, between tokens) on that clock:
// move it along in small steps while the real requests are on their way.
bool waitAdvancing(sb::test::FakeClock &fake, const std::function<bool()> &done)
{
    for (int i = 0; i < kWaitMs && !done(); ++i) {
        fake.advance(std::chrono::milliseconds(1));
        QTest::qWait(1);
    }
    return done();
}

ProviderSpec fastProvider(const QString &dialect)
{
    ProviderSpec p;
    p.name = QStringLiteral("p-") + dialect;
    p.dialect = dialect;
    p.models = {QStringLiteral("m1")};
    p.ttftMs = Distribution::constant(5);
    p.tokensPerSecond = Distribution::constant(2000);
    p.completionTokens = 12;
    p.language = Language::Mixed;
    p.chunking.mode = ChunkingSpec::Mode::Bytes;
    p.chunking.minBytes = 1;
    p.chunking.maxBytes = 6;
    return p;
}

FaultSpec always(SimError error)
{
    FaultSpec f;
    f.type = FaultSpec::Type::Errors;
    f.probability = 1.0;
    f.mix = {{error, 1.0}};
    return f;
}

// The request a dialect's adapter would send for one chat call.
UpstreamRequest chatRequest(const FakeProvider &provider, bool stream, const QByteArray &key = "sk-test")
{
    UpstreamRequest r;
    r.stream = stream;
    r.headers.add("content-type", "application/json");
    const QString root = QStringLiteral("http://127.0.0.1:%1").arg(provider.port());
    const QString dialect = provider.spec().dialect;
    QJsonObject body{{"model", "m1"}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}};
    if (dialect == QLatin1String("openai_compat") || dialect == QLatin1String("anthropic") || dialect == QLatin1String("ernie"))
        body.insert(QStringLiteral("stream"), stream);
    if (dialect == QLatin1String("openai_compat")) {
        r.url = QUrl(root + QStringLiteral("/v1/chat/completions"));
        r.headers.add("authorization", "Bearer " + key);
    } else if (dialect == QLatin1String("anthropic")) {
        r.url = QUrl(root + QStringLiteral("/v1/messages"));
        r.headers.add("x-api-key", key);
    } else if (dialect == QLatin1String("gemini")) {
        r.url = QUrl(root + (stream ? QStringLiteral("/v1beta/models/m1:streamGenerateContent?alt=sse")
                                    : QStringLiteral("/v1beta/models/m1:generateContent")));
        r.headers.add("x-goog-api-key", key);
    } else if (dialect == QLatin1String("dashscope")) {
        r.url = QUrl(root + QStringLiteral("/api/v1/services/aigc/text-generation/generation"));
        r.headers.add("authorization", "Bearer " + key);
        if (stream)
            r.headers.add("x-dashscope-sse", "enable");
    } else {
        r.url = QUrl(root + QStringLiteral("/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/m1?access_token=") + QString::fromUtf8(key));
    }
    r.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    return r;
}

std::shared_ptr<Fetch> fetch(UpstreamClient &client, const UpstreamRequest &request, std::chrono::milliseconds timeout = std::chrono::milliseconds(20000),
                             const QString &caBundle = {})
{
    auto f = std::make_shared<Fetch>();
    TransferOptions options;
    options.totalTimeout = timeout;
    options.allowHttp2 = false;
    options.caBundlePath = caBundle;
    TransferCallbacks cb;
    cb.onHeaders = [f](int status, const HttpHeaders &headers) {
        f->status = status;
        f->headers = headers;
    };
    cb.onData = [f](QByteArrayView chunk) { f->body.append(chunk.data(), chunk.size()); };
    cb.onComplete = [f](TransferError error, const QString &) {
        f->error = error;
        f->done = true;
    };
    client.start(request, options, std::move(cb));
    return f;
}

UpstreamRequest get(quint16 port, const QString &path)
{
    UpstreamRequest r;
    r.method = "GET";
    r.url = QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path));
    return r;
}

// What the proxy would make of a fetched answer: the event stream a stream request asked for
// through the dialect's translator (to its end), anything else through classifyAnswer(), where a
// whole answer to a stream request is no answer either.
OutcomeKind engineVerdict(const QString &dialect, const Fetch &f, bool stream)
{
    const ProviderAdapter *adapter = ProviderRegistry::find(dialect);
    if (!stream || !f.headers.value("content-type").contains("text/event-stream")) {
        OpenAiAnswer answer;
        TokenUsage usage;
        const OutcomeKind kind = adapter->classifyAnswer(f.status, f.headers, f.body, false, &answer, &usage).kind;
        return stream && kind == OutcomeKind::Success ? OutcomeKind::ProviderDown : kind;
    }
    auto translator = adapter->streamTranslator(QJsonObject{{"model", "m1"}, {"stream", true}});
    SseParser parser;
    std::vector<SseEvent> events = parser.feed(f.body);
    for (SseEvent &e : parser.finish())
        events.push_back(std::move(e));
    for (const SseEvent &e : events) {
        const StreamStep step = translator->onEvent(e);
        if (step.error)
            return step.error->kind;
        if (step.finished)
            return OutcomeKind::Success;
    }
    const StreamStep end = translator->onEnd();
    return end.error ? end.error->kind : OutcomeKind::Success;
}

} // namespace

class tst_SimProviders : public QObject {
    Q_OBJECT

private slots:
    void everyDialectStreamsAndAnswersWhole_data()
    {
        QTest::addColumn<QString>("dialect");
        QTest::addColumn<QByteArray>("endMarker");
        QTest::newRow("openai_compat") << "openai_compat" << QByteArray("data: [DONE]\n\n");
        QTest::newRow("anthropic") << "anthropic" << QByteArray("event: message_stop");
        QTest::newRow("gemini") << "gemini" << QByteArray("\"finishReason\":\"STOP\"");
        QTest::newRow("dashscope") << "dashscope" << QByteArray("\"finish_reason\":\"stop\"");
        QTest::newRow("ernie") << "ernie" << QByteArray("\"is_end\":true");
    }
    void everyDialectStreamsAndAnswersWhole()
    {
        QFETCH(QString, dialect);
        QFETCH(QByteArray, endMarker);
        SplitMixRandom random(1);
        ScenarioClock clock(SystemClock::instance(), 1.0);
        FakeProvider provider(fastProvider(dialect), clock, random, 1);
        QString error;
        QVERIFY2(provider.start(&error), qPrintable(error));
        QVERIFY(provider.port() != 0);
        UpstreamClient client;
        const auto stream = fetch(client, chatRequest(provider, true));
        const auto whole = fetch(client, chatRequest(provider, false));
        QTRY_VERIFY_WITH_TIMEOUT(stream->done && whole->done, kWaitMs);
        QCOMPARE(stream->error, TransferError::None);
        QCOMPARE(stream->status, 200);
        QVERIFY(stream->headers.value("content-type").startsWith("text/event-stream"));
        QCOMPARE(stream->headers.value("x-sim-provider"), provider.spec().name.toUtf8());
        QVERIFY2(stream->body.contains(endMarker), stream->body.constData());
        // Written in 1..6-byte pieces, the stream still arrives as valid UTF-8 once whole.
        QCOMPARE(QString::fromUtf8(stream->body).toUtf8(), stream->body);
        QCOMPARE(whole->status, 200);
        QVERIFY(QJsonDocument::fromJson(whole->body).isObject());
        QVERIFY(!whole->body.contains("error"));
        QTRY_COMPARE_WITH_TIMEOUT(provider.stats().succeeded, quint64(2), kWaitMs);
        QCOMPARE(provider.stats().chat, quint64(2));
    }

    void probesFailWhileTheProviderIsDown()
    {
        ProviderSpec spec = fastProvider(QStringLiteral("gemini"));
        FaultSpec blackout;
        blackout.type = FaultSpec::Type::Blackout;
        blackout.from = 1000; // later: up first
        blackout.mix = {{SimError::Http503, 1}};
        spec.faults = {blackout};
        SplitMixRandom random(2);
        sb::test::FakeClock fake;
        ScenarioClock clock(fake, 1.0);
        FakeProvider provider(spec, clock, random, 1);
        QVERIFY(provider.start());
        UpstreamClient client;
        auto up = fetch(client, get(provider.port(), QStringLiteral("/v1beta/models")));
        QTRY_VERIFY_WITH_TIMEOUT(up->done, kWaitMs);
        QCOMPARE(up->status, 200);
        QVERIFY(up->body.contains("models/m1"));
        fake.advance(std::chrono::seconds(1000));
        auto down = fetch(client, get(provider.port(), QStringLiteral("/v1beta/models")));
        auto chat = fetch(client, chatRequest(provider, false));
        QTRY_VERIFY_WITH_TIMEOUT(down->done && chat->done, kWaitMs);
        QCOMPARE(down->status, 503);
        QCOMPARE(chat->status, 503);
        QVERIFY(chat->body.contains("UNAVAILABLE"));
        QCOMPARE(provider.stats().probes, quint64(2));
        QCOMPARE(provider.stats().probesFailed, quint64(1));
    }

    void perKeyLimitsAnswer429AndUnknownKeys401()
    {
        ProviderSpec spec = fastProvider(QStringLiteral("openai_compat"));
        spec.keys = {{"k1", 2}, {"k2", 2}};
        SplitMixRandom random(3);
        sb::test::FakeClock fake;
        ScenarioClock clock(fake, 1.0);
        FakeProvider provider(spec, clock, random, 1);
        QVERIFY(provider.start());
        UpstreamClient client;
        std::vector<std::shared_ptr<Fetch>> k1;
        for (int i = 0; i < 3; ++i) {
            k1.push_back(fetch(client, chatRequest(provider, false, "k1")));
            QVERIFY(waitAdvancing(fake, [&] { return k1.back()->done; }));
        }
        auto k2 = fetch(client, chatRequest(provider, false, "k2"));
        auto stolen = fetch(client, chatRequest(provider, false, "sk-stolen"));
        QVERIFY(waitAdvancing(fake, [&] { return k2->done && stolen->done; }));
        QCOMPARE(k1[0]->status, 200);
        QCOMPARE(k1[1]->status, 200);
        QCOMPARE(k1[2]->status, 429);
        QCOMPARE(k1[2]->headers.value("retry-after"), QByteArray("60")); // the window frees in a minute
        QCOMPARE(k2->status, 200);
        QCOMPARE(stolen->status, 401);
        QCOMPARE(provider.stats().keyRejected, quint64(2));
        QCOMPARE(provider.keyLimiter().admittedPerKey(), (std::vector<quint64>{2, 1}));
        fake.advance(std::chrono::seconds(61));
        auto again = fetch(client, chatRequest(provider, false, "k1"));
        QVERIFY(waitAdvancing(fake, [&] { return again->done; }));
        QCOMPARE(again->status, 200);
    }

    void connectRefusedWindowClosesThePortAndReopensIt()
    {
        ProviderSpec spec = fastProvider(QStringLiteral("openai_compat"));
        FaultSpec refused;
        refused.type = FaultSpec::Type::Blackout;
        refused.from = 0;
        refused.to = 5; // scenario seconds: 0.5 s of real time at x10
        refused.mix = {{SimError::ConnectRefused, 1}};
        spec.faults = {refused};
        SplitMixRandom random(4);
        ScenarioClock clock(SystemClock::instance(), 10.0);
        FakeProvider provider(spec, clock, random, 1);
        QVERIFY(provider.start());
        QVERIFY(provider.port() != 0);
        QVERIFY(!provider.isListening());
        UpstreamClient client;
        auto first = fetch(client, chatRequest(provider, false));
        QTRY_VERIFY_WITH_TIMEOUT(first->done, kWaitMs);
        if (clock.now() < 5.0) // only meaningful if the window had not ended yet
            QCOMPARE(first->error, TransferError::ConnectFailed);
        QTRY_VERIFY_WITH_TIMEOUT(provider.isListening(), kWaitMs);
        auto later = fetch(client, chatRequest(provider, false));
        QTRY_VERIFY_WITH_TIMEOUT(later->done, kWaitMs);
        QCOMPARE(later->error, TransferError::None);
        QCOMPARE(later->status, 200);
        QCOMPARE(provider.stats().listenerClosures, quint64(0)); // it started closed, never had to close
    }

    void faultsAsTheClientSeesThem()
    {
        SplitMixRandom random(5);
        ScenarioClock clock(SystemClock::instance(), 1.0);
        auto make = [&](const QString &dialect, FaultSpec f) {
            ProviderSpec spec = fastProvider(dialect);
            spec.completionTokens = 20;
            spec.faults = {f};
            auto p = std::make_unique<FakeProvider>(spec, clock, random, 1);
            return p->start() ? std::move(p) : nullptr;
        };
        FaultSpec retryAfter = always(SimError::Http429RetryAfter);
        retryAfter.retryAfterSeconds = 3;
        auto p429 = make("openai_compat", retryAfter);
        auto pFirst = make("anthropic", always(SimError::FirstEventError));
        auto pMid = make("openai_compat", always(SimError::MidStreamError));
        auto pCut = make("openai_compat", always(SimError::StreamCut));
        auto pReset = make("openai_compat", always(SimError::ConnectionReset));
        auto pHang = make("openai_compat", always(SimError::Hang));
        auto pBody = make("dashscope", always(SimError::BodyRateLimit));
        auto pErnie = make("ernie", always(SimError::BodyRateLimit));
        for (auto *p : {p429.get(), pFirst.get(), pMid.get(), pCut.get(), pReset.get(), pHang.get(), pBody.get(), pErnie.get()})
            QVERIFY(p);
        UpstreamClient client;
        auto r429 = fetch(client, chatRequest(*p429, false));
        auto rFirst = fetch(client, chatRequest(*pFirst, true));
        auto rMid = fetch(client, chatRequest(*pMid, true));
        auto rCut = fetch(client, chatRequest(*pCut, true));
        auto rReset = fetch(client, chatRequest(*pReset, false));
        auto rHang = fetch(client, chatRequest(*pHang, true), std::chrono::milliseconds(300));
        auto rBody = fetch(client, chatRequest(*pBody, false));
        auto rBodyStream = fetch(client, chatRequest(*pBody, true));
        auto rErnie = fetch(client, chatRequest(*pErnie, false));
        QTRY_VERIFY_WITH_TIMEOUT(r429->done && rFirst->done && rMid->done && rCut->done && rReset->done && rHang->done
                                     && rBody->done && rBodyStream->done && rErnie->done,
                                 kWaitMs);
        QCOMPARE(r429->status, 429);
        QCOMPARE(r429->headers.value("retry-after"), QByteArray("3"));

        QCOMPARE(rFirst->status, 200);
        QVERIFY(rFirst->body.startsWith("event: error\ndata: "));
        QVERIFY(rFirst->body.contains("overloaded_error"));

        QCOMPARE(rMid->status, 200);
        QVERIFY(rMid->body.contains("\"content\""));
        QVERIFY(rMid->body.contains("{\"error\""));
        QVERIFY(!rMid->body.contains("[DONE]"));

        QCOMPARE(rCut->status, 200);
        QVERIFY(rCut->error != TransferError::None); // the chunked body never ended
        QVERIFY(!rCut->body.contains("[DONE]"));

        QVERIFY(rReset->error != TransferError::None);
        QVERIFY(rReset->body.isEmpty());

        QCOMPARE(rHang->error, TransferError::Timeout);

        QCOMPARE(rBody->status, 200);
        QVERIFY(rBody->body.contains("Throttling.RateQuota"));
        QCOMPARE(rBodyStream->status, 200);
        QVERIFY(rBodyStream->body.contains(":HTTP_STATUS/429"));
        QCOMPARE(rErnie->status, 200);
        QCOMPARE(QJsonDocument::fromJson(rErnie->body).object().value("error_code").toInt(), 18);

        QCOMPARE(pMid->stats().injected[std::size_t(SimError::MidStreamError)], quint64(1));
        QCOMPARE(pMid->stats().succeeded, quint64(0));
    }

    // A provider can serve HTTPS, as hosted ones do: reached by name with its certificate trusted,
    // refused without it, and its faults still arrive as a client of a TLS server sees them.
    void servesHttpsByNameWithItsCertificate()
    {
        sb::test::TestCertificate certificate;
        QString why;
        QVERIFY2(certificate.make(&why, QStringLiteral("localhost"), QStringLiteral("DNS:localhost")), qPrintable(why));
        SplitMixRandom random(3);
        ScenarioClock clock(SystemClock::instance(), 1.0);
        auto make = [&](std::optional<SimError> fault) {
            ProviderSpec spec = fastProvider(QStringLiteral("openai_compat"));
            spec.tlsCertFile = certificate.certificateFile();
            spec.tlsKeyFile = certificate.keyFile();
            if (fault)
                spec.faults = {always(*fault)};
            auto p = std::make_unique<FakeProvider>(spec, clock, random, 1);
            QString error;
            return p->start(&error) ? std::move(p) : nullptr;
        };
        auto healthy = make(std::nullopt);
        auto cut = make(SimError::StreamCut);
        auto reset = make(SimError::ConnectionReset);
        QVERIFY(healthy && cut && reset);
        QCOMPARE(healthy->baseUrl(), QStringLiteral("https://localhost:%1/v1").arg(healthy->port()));
        auto overTls = [](const FakeProvider &p, bool stream) {
            UpstreamRequest r = chatRequest(p, stream);
            r.url = QUrl(p.baseUrl() + QStringLiteral("/chat/completions"));
            return r;
        };
        const QString trusted = certificate.certificateFile();
        const auto timeout = std::chrono::milliseconds(20000);
        UpstreamClient client;
        auto stream = fetch(client, overTls(*healthy, true), timeout, trusted);
        auto whole = fetch(client, overTls(*healthy, false), timeout, trusted);
        auto untrusted = fetch(client, overTls(*healthy, false), timeout);
        auto rCut = fetch(client, overTls(*cut, true), timeout, trusted);
        auto rReset = fetch(client, overTls(*reset, false), timeout, trusted);
        QTRY_VERIFY_WITH_TIMEOUT(stream->done && whole->done && untrusted->done && rCut->done && rReset->done, kWaitMs);

        QCOMPARE(stream->error, TransferError::None);
        QCOMPARE(stream->status, 200);
        QVERIFY2(stream->body.contains("data: [DONE]"), stream->body.constData());
        QCOMPARE(whole->status, 200);
        QVERIFY(QJsonDocument::fromJson(whole->body).isObject());
        QCOMPARE(healthy->stats().chat, quint64(2)); // the untrusted one never got past the handshake

        QCOMPARE(untrusted->error, TransferError::TlsFailed);
        QCOMPARE(untrusted->status, 0);

        QCOMPARE(rCut->status, 200);
        QVERIFY(rCut->error != TransferError::None); // the chunked body never ended
        QVERIFY(!rCut->body.contains("[DONE]"));
        QVERIFY(rReset->error != TransferError::None);
        QVERIFY(rReset->body.isEmpty());
        QCOMPARE(reset->stats().injected[std::size_t(SimError::ConnectionReset)], quint64(1));

        // A key that is not there is said at start, not found out by the first client.
        ProviderSpec broken = fastProvider(QStringLiteral("anthropic"));
        broken.tlsCertFile = certificate.certificateFile();
        broken.tlsKeyFile = certificate.directory() + QStringLiteral("/missing.pem");
        FakeProvider refused(broken, clock, random, 1);
        QString error;
        QVERIFY(!refused.start(&error));
        QVERIFY2(error.contains(QLatin1String("cannot serve HTTPS")), qPrintable(error));
    }

    // The 2xx faults that are not answers, over real sockets in every dialect: each arrives as a
    // complete HTTP exchange (no transport error to give it away) and is what the engine calls it.
    void answersThatAreNotAnswers_data()
    {
        QTest::addColumn<QString>("dialect");
        for (const char *d : {"openai_compat", "anthropic", "gemini", "dashscope", "ernie"})
            QTest::newRow(d) << QString::fromLatin1(d);
    }
    void answersThatAreNotAnswers()
    {
        QFETCH(QString, dialect);
        SplitMixRandom random(11);
        ScenarioClock clock(SystemClock::instance(), 1.0);
        struct Expect {
            SimError fault;
            OutcomeKind whole;
            OutcomeKind stream;
        };
        const OutcomeKind down = OutcomeKind::ProviderDown;
        const Expect cases[] = {
            {SimError::MalformedAnswer, down, down},
            {SimError::EmptyObject, down, down},
            {SimError::NotJson, down, down},
            {SimError::TruncatedAnswer, down, down},
            {SimError::SseAnswer, down, OutcomeKind::Success},
            {SimError::EmptyStream, down, down},
            {SimError::DisagreeingError, down, down},
            {SimError::BodyInvalidRequest, OutcomeKind::NonRetryableParamError, OutcomeKind::NonRetryableParamError},
        };
        UpstreamClient client;
        for (const Expect &c : cases) {
            ProviderSpec spec = fastProvider(dialect);
            spec.chunking.mode = ChunkingSpec::Mode::Event;
            spec.faults = {always(c.fault)};
            FakeProvider provider(spec, clock, random, 1);
            QVERIFY(provider.start());
            for (bool stream : {false, true}) {
                const QString what = QStringLiteral("%1 %2").arg(QString::fromLatin1(toString(c.fault)), stream ? "stream" : "whole");
                auto f = fetch(client, chatRequest(provider, stream));
                QTRY_VERIFY_WITH_TIMEOUT(f->done, kWaitMs);
                QVERIFY2(f->error == TransferError::None, qPrintable(what));
                QCOMPARE(f->status, 200);
                const OutcomeKind expected = stream ? c.stream : c.whole;
                QVERIFY2(engineVerdict(dialect, *f, stream) == expected,
                         qPrintable(what + QStringLiteral(": not ") + QString::fromLatin1(toString(expected)) + QStringLiteral("\n")
                                    + QString::fromUtf8(f->body.left(600))));
            }
            QCOMPARE(provider.stats().injected[std::size_t(c.fault)], quint64(2));
        }
    }

    // A refusal of the provider's own parameter or limit: an HTTP 400 in the dialect's error shape
    // (ERNIE's inside a 200), for a stream request too, that the engine takes for the caller's.
    void providerParamErrorsAreTheDialectsOwnRefusal_data() { answersThatAreNotAnswers_data(); }
    void providerParamErrorsAreTheDialectsOwnRefusal()
    {
        QFETCH(QString, dialect);
        SplitMixRandom random(12);
        ScenarioClock clock(SystemClock::instance(), 1.0);
        UpstreamClient client;
        ProviderSpec spec = fastProvider(dialect);
        spec.faults = {always(SimError::ProviderParamError)};
        FakeProvider provider(spec, clock, random, 1);
        QVERIFY(provider.start());
        for (bool stream : {false, true}) {
            auto f = fetch(client, chatRequest(provider, stream));
            QTRY_VERIFY_WITH_TIMEOUT(f->done, kWaitMs);
            QVERIFY(f->error == TransferError::None);
            QCOMPARE(f->status, dialect == u"ernie" ? 200 : 400);
            QVERIFY(f->headers.value("content-type").startsWith("application/json")); // before any event
            QVERIFY2(engineVerdict(dialect, *f, stream) == OutcomeKind::NonRetryableParamError, f->body.left(600).constData());
        }
        QCOMPARE(provider.stats().injected[std::size_t(SimError::ProviderParamError)], quint64(2));
        QCOMPARE(simErrorFromString(u"provider_param_error"), std::optional<SimError>(SimError::ProviderParamError));
    }

    void chatEndpointFollowsTheBaseUrl()
    {
        QCOMPARE(DrillRunner::chatEndpoint(QUrl("http://127.0.0.1:8400")).toString(),
                 QStringLiteral("http://127.0.0.1:8400/v1/chat/completions"));
        QCOMPARE(DrillRunner::chatEndpoint(QUrl("http://127.0.0.1:8400/v1/")).toString(),
                 QStringLiteral("http://127.0.0.1:8400/v1/chat/completions"));
        QCOMPARE(DrillRunner::chatEndpoint(QUrl("http://h:1/v1/chat/completions")).toString(),
                 QStringLiteral("http://h:1/v1/chat/completions"));
    }

    void directDrillMeasuresAnOutage()
    {
        // 20 req/s for 6 scenario seconds at x2 (3 s real); the provider refuses from 2 s to 4 s. A slow
        // machine sends late, never early, so only upper bounds on times are asserted.
        QStringList errors;
        const auto scenario = Scenario::fromJson(QJsonDocument::fromJson(R"({
            "name": "direct-outage", "time_scale": 2, "seed": 7,
            "providers": [{"name": "p", "dialect": "openai_compat", "port": 0, "ttft_ms": 300, "tokens_per_second": 200,
                           "completion_tokens": 10, "language": "zh", "chunking": {"mode": "bytes", "min": 1, "max": 5},
                           "faults": [{"kind": "blackout", "from": 2, "to": 4, "mix": {"500": 1, "503": 1, "429": 1}}]}],
            "load": {"rate": 20, "duration": 6, "target": "direct", "stream_ratio": 0.5, "concurrency": 500}
        })").object(), &errors);
        QVERIFY2(scenario, qPrintable(errors.join('\n')));
        DrillRunner runner(*scenario);
        QString error;
        QVERIFY2(runner.startProviders(&error), qPrintable(error));
        QVERIFY2(runner.startLoad(QUrl(), {}, &error), qPrintable(error));
        QSignalSpy finished(&runner, &DrillRunner::finished);
        QVERIFY(finished.wait(kWaitMs * 2));
        const DrillReport report = runner.report();
        QCOMPARE(report.requests + report.dropped, 120);
        QCOMPARE(report.dropped, 0);
        QVERIFY2(report.successRate > 0.3 && report.successRate < 0.95, qPrintable(report.toText()));
        const FakeProvider::Stats stats = runner.provider("p")->stats();
        const quint64 injected = stats.injected[std::size_t(SimError::Http500)] + stats.injected[std::size_t(SimError::Http503)]
            + stats.injected[std::size_t(SimError::Http429)];
        QCOMPARE(quint64(report.failed), injected); // every refusal reached the client as a failure, nothing else failed
        for (const RequestRecord &r : runner.load()->records()) {
            if (!r.ok) {
                QVERIFY2(r.at < 4.0, qPrintable(QString::number(r.at))); // planned before the outage ended
                QVERIFY2(r.error == "http_500" || r.error == "http_503" || r.error == "http_429", qPrintable(r.error));
            } else {
                QCOMPARE(r.channel, QStringLiteral("p")); // from x-sim-provider
                // Nothing can come back sooner than the programmed 300 ms TTFT (scenario time).
                QVERIFY2(r.ttftMs >= 299.0, qPrintable(QString::number(r.ttftMs)));
            }
        }
        // Every stream that succeeded was re-assembled from 1..5-byte pieces of Chinese text.
        QVERIFY(std::any_of(runner.load()->records().begin(), runner.load()->records().end(),
                            [](const RequestRecord &r) { return r.ok && r.stream; }));
        QCOMPARE(report.primaryChannels, QStringList{"p"});
        QVERIFY(report.timeToRecovery.has_value());
        QCOMPARE(report.channels.first(), QStringLiteral("p"));
        const quint64 served = runner.provider("p")->stats().chat;
        QCOMPARE(served, quint64(120));
    }
};

QTEST_GUILESS_MAIN(tst_SimProviders)
#include "tst_SimProviders.moc"
