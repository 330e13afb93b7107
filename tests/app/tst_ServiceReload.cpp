// `systemctl reload switchboard`: ExecReload sends SIGHUP to `switchboard --headless`, which reads
// its configuration again (the --config file, or the database an `--import` wrote) and applies it
// live. The real executable with requests in flight while the signal arrives: none is dropped, the
// new configuration answers afterwards, and a configuration that cannot work is refused with the
// old one still serving.
#include "FakeProviderSpecs.h"
#include "HeadlessHost.h"
#include "HeadlessProcess.h"
#include "ProxyConfigs.h"
#include "ProxyUnderTest.h"

#include "common/Random.h"
#include "model/ConfigJson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace sb;
using namespace sb::test;
using namespace std::chrono_literals;

namespace {

struct Answer {
    int status = 0;
    QByteArray body;
    bool finished = false;
};

// Sends a chat request for `model`; its answer lands in *answer when it is complete.
void chat(QNetworkAccessManager &network, quint16 port, const QString &model, bool stream, Answer *answer)
{
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(port)));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    request.setTransferTimeout(30000);
    const QJsonObject body{{QStringLiteral("model"), model},
                           {QStringLiteral("stream"), stream},
                           {QStringLiteral("messages"),
                            QJsonArray{QJsonObject{{QStringLiteral("role"), QStringLiteral("user")}, {QStringLiteral("content"), QStringLiteral("hi")}}}}};
    QNetworkReply *reply = network.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    QObject::connect(reply, &QNetworkReply::finished, reply, [reply, answer] {
        answer->status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        answer->body = reply->readAll();
        answer->finished = true;
        reply->deleteLater();
    });
}

int chatNow(QNetworkAccessManager &network, quint16 port, const QString &model)
{
    Answer answer;
    chat(network, port, model, false, &answer);
    for (int waited = 0; !answer.finished && waited < 30000; waited += 20)
        QTest::qWait(20);
    return answer.status; // 0 when no answer came
}

bool complete(const Answer &answer, bool stream)
{
    return answer.finished && answer.status == 200
           && (stream ? answer.body.contains("data: [DONE]") : answer.body.contains("\"chat.completion\""));
}

} // namespace

class tst_ServiceReload : public QObject {
    Q_OBJECT

    SystemClock &m_clock = SystemClock::instance();
    SplitMixRandom m_random{77};

    // A provider slow enough that a stream is still running when the signal arrives (about 1.5 s).
    sim::ProviderSpec slowProvider()
    {
        sim::ProviderSpec spec = test::fakeProviderSpec(QStringLiteral("upstream"));
        spec.models = {QStringLiteral("gpt-4o")};
        spec.tokensPerSecond = sim::Distribution::constant(10);
        spec.completionTokens = 15;
        return spec;
    }

private slots:
    void sighupReReadsTheConfigFileWithoutDroppingRequests()
    {
        test::ProxyUnderTest upstream(m_clock, m_random);
        QString error;
        QVERIFY2(upstream.startProviders(slowProvider(), &error), qPrintable(error));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("switchboard.json"));
        const auto before = test::oneChannelConfig(QStringLiteral("upstream"), upstream.primary->baseUrl());
        QVERIFY(test::writeConfigFile(file, *before));

        HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path());
        QVERIFY2(service.start({QStringLiteral("--config"), file}), qPrintable(service.log()));
        QNetworkAccessManager network;
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o-next")), 404); // not yet

        // Requests under way, then the new file and the signal.
        std::vector<Answer> answers(8);
        for (std::size_t i = 0; i < answers.size(); ++i)
            chat(network, service.port(), QStringLiteral("gpt-4o"), i % 2 == 0, &answers[i]);
        QTRY_VERIFY_WITH_TIMEOUT(upstream.primary->stats().chat >= 4, 10000);
        EngineConfig after = *before;
        RouteConfig next = after.routes.front();
        next.id = 0;
        next.logicalModel = QStringLiteral("gpt-4o-next");
        after.routes.push_back(next);
        after.retry.overallDeadline = 59s;
        QVERIFY(test::writeConfigFile(file, after));
        service.signal(SIGHUP);
        QVERIFY2(service.waitForLog(QStringLiteral("Configuration reloaded from %1").arg(file)), qPrintable(service.log()));
        QVERIFY2(std::any_of(answers.begin(), answers.end(), [](const Answer &a) { return !a.finished; }),
                 "every request had finished before the reload: the test proves nothing");

        for (std::size_t i = 0; i < answers.size(); ++i)
            QTRY_VERIFY2_WITH_TIMEOUT(complete(answers[i], i % 2 == 0), qPrintable(QStringLiteral("request %1: %2 %3")
                                                                                       .arg(i).arg(answers[i].status)
                                                                                       .arg(QString::fromUtf8(answers[i].body.left(300)))),
                                      30000);
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o-next")), 200); // the new file is in effect
        QCOMPARE(service.process().state(), QProcess::Running);

        // A file that cannot work: refused with its sentence, the running configuration kept.
        QFile broken(file);
        QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
        broken.write("{\"routes\": [{\"model\": \"m\", \"channels\": [\"ghost\"]}]}");
        broken.close();
        service.signal(SIGHUP);
        QVERIFY2(service.waitForLog(QStringLiteral("reload refused")), qPrintable(service.log()));
        QVERIFY2(service.log().contains(QStringLiteral("ghost")), qPrintable(service.log()));
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o-next")), 200);

        service.signal(SIGTERM);
        QVERIFY(service.process().waitForFinished(30000));
        QCOMPARE(service.process().exitCode(), 0);
    }

    // SIGPIPE is what the kernel sends a process that writes to a connection its peer has closed:
    // a client gone mid-stream, a provider's reset, Redis restarting under a fleet. The engine's
    // own writes ask for EPIPE instead, but any library beside them may write plainly; the
    // service must take the signal as nothing more than the error it stands for.
    void aBrokenPipeSignalLeavesTheServiceServing()
    {
        test::ProxyUnderTest upstream(m_clock, m_random);
        QString error;
        QVERIFY2(upstream.startProviders(test::fakeProviderSpec(QStringLiteral("upstream")), &error), qPrintable(error));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("switchboard.json"));
        QVERIFY(test::writeConfigFile(file, *test::oneChannelConfig(QStringLiteral("upstream"), upstream.primary->baseUrl())));
        HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path());
        QVERIFY2(service.start({QStringLiteral("--config"), file}), qPrintable(service.log()));
        for (int i = 0; i < 3; ++i)
            service.signal(SIGPIPE);
        QNetworkAccessManager network;
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o")), 200);
        QCOMPARE(service.process().state(), QProcess::Running);
        QCOMPARE(service.stop(), 0);
    }

    // The service on its database: `--import` writes a new configuration beside the running
    // service (nothing of it applies yet), and the reload brings it in.
    void sighupAppliesWhatAnImportSaved()
    {
        test::ProxyUnderTest upstream(m_clock, m_random);
        QString error;
        QVERIFY2(upstream.startProviders(slowProvider(), &error), qPrintable(error));
        QTemporaryDir dir;
        const QString first = dir.filePath(QStringLiteral("first.json"));
        QVERIFY(test::writeConfigFile(first, *test::oneChannelConfig(QStringLiteral("upstream"), upstream.primary->baseUrl())));
        const auto runImport = [&](const QString &path) {
            QProcess import;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HOME"), dir.path());
            env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
            import.setProcessEnvironment(env);
            import.start(QStringLiteral(SB_SWITCHBOARD_BINARY), {QStringLiteral("--headless"), QStringLiteral("--db"),
                                                                 dir.filePath(QStringLiteral("switchboard.db")), QStringLiteral("--import"), path});
            import.waitForFinished(60000);
            return import.exitCode();
        };
        QCOMPARE(runImport(first), 0);

        HeadlessProcess service(QStringLiteral(SB_SWITCHBOARD_BINARY), dir.path());
        QVERIFY2(service.start({}), qPrintable(service.log()));
        QNetworkAccessManager network;
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o")), 200);

        EngineConfig next = *test::oneChannelConfig(QStringLiteral("upstream"), upstream.primary->baseUrl(), QStringLiteral("renamed"));
        const QString second = dir.filePath(QStringLiteral("second.json"));
        QVERIFY(test::writeConfigFile(second, next));
        QCOMPARE(runImport(second), 0);
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o")), 200); // saved, not applied yet

        Answer inFlight;
        chat(network, service.port(), QStringLiteral("gpt-4o"), true, &inFlight);
        QTRY_VERIFY_WITH_TIMEOUT(upstream.primary->stats().chat >= 3, 10000);
        service.signal(SIGHUP);
        QVERIFY2(service.waitForLog(QStringLiteral("Configuration reloaded from")), qPrintable(service.log()));
        QTRY_VERIFY_WITH_TIMEOUT(inFlight.finished, 30000);
        QVERIFY2(complete(inFlight, true), inFlight.body.constData());
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("renamed")), 200);
        QCOMPARE(chatNow(network, service.port(), QStringLiteral("gpt-4o")), 404);

        service.signal(SIGTERM);
        QVERIFY(service.process().waitForFinished(30000));
        QCOMPARE(service.process().exitCode(), 0);
    }
};

QTEST_MAIN(tst_ServiceReload)
#include "tst_ServiceReload.moc"
