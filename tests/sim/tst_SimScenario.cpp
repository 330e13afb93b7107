#include "sim/Scenario.h"

#include "FakeRandom.h"
#include "TestPaths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sb::sim;

class tst_SimScenario : public QObject {
    Q_OBJECT

private:
    static QJsonObject parse(const char *json)
    {
        return QJsonDocument::fromJson(QByteArray(json)).object();
    }

private slots:
    void everyErrorNameIsDocumentedAndParses()
    {
        // A fault a scenario cannot name, or one SCENARIO_FORMAT.md does not explain, is no use.
        QFile format(sb::test::sourcePath(QStringLiteral("core/sim/SCENARIO_FORMAT.md")));
        QVERIFY(format.open(QIODevice::ReadOnly));
        const QByteArray text = format.readAll();
        for (int i = 1; i < SimErrorCount; ++i) {
            const SimError error = static_cast<SimError>(i);
            const QByteArray name = toString(error);
            QVERIFY2(text.contains("`" + name + "`"), name.constData());
            QCOMPARE(simErrorFromString(QString::fromLatin1(name)), std::optional<SimError>(error));
            QJsonObject fault{{"kind", "errors"}, {"mix", QString::fromLatin1(name)}};
            QJsonObject provider{{"name", "p"}, {"faults", QJsonArray{fault}}};
            QStringList errors;
            QVERIFY2(Scenario::fromJson(QJsonObject{{"providers", QJsonArray{provider}}}, &errors).has_value(), qPrintable(errors.join(' ')));
        }
    }

    void parsesAFullProvider()
    {
        QStringList errors;
        const auto s = Scenario::fromJson(parse(R"({
            "name": "t", "time_scale": 10, "seed": 9,
            "providers": [{"name": "p", "dialect": "gemini", "port": 18999, "models": ["m1", "m2"],
                "keys": ["k0", {"key": "k1", "rpm": 30}],
                "ttft_ms": {"dist": "uniform", "min": 100, "max": 200},
                "tokens_per_second": 40, "completion_tokens": 8, "language": "vi",
                "chunking": {"mode": "bytes", "min": 2, "max": 5},
                "faults": [
                  {"kind": "errors", "from": 1, "to": 2, "probability": 0.5, "mix": {"500": 1, "http_429_retry_after": 3}, "retry_after": 7},
                  {"kind": "flapping", "from": 10, "to": 70, "period": 5},
                  {"kind": "latency_spike", "probability": 0.1, "extra_ms": {"dist": "normal", "mean": 900, "stddev": 50}}
                ]}],
            "load": {"rate": 3, "process": "poisson", "duration": 30, "concurrency": 7, "stream_ratio": 0.25,
                     "models": {"m1": 3, "m2": 1}, "target": "direct"}
        })"), &errors);
        QVERIFY2(s, qPrintable(errors.join('\n')));
        QCOMPARE(s->timeScale, 10.0);
        QCOMPARE(s->seed, quint64(9));
        const ProviderSpec &p = s->providers.at(0);
        QCOMPARE(p.port, quint16(18999));
        QCOMPARE(p.models, QStringList({"m1", "m2"}));
        QCOMPARE(p.keys.size(), std::size_t(2));
        QCOMPARE(p.keys[0].rpm, 0);
        QCOMPARE(p.keys[1].secret, QByteArray("k1"));
        QCOMPARE(p.keys[1].rpm, 30);
        QCOMPARE(p.ttftMs.kind, Distribution::Kind::Uniform);
        QCOMPARE(p.tokensPerSecond.mean(), 40.0);
        QCOMPARE(p.language, Language::Vietnamese);
        QCOMPARE(p.chunking.mode, ChunkingSpec::Mode::Bytes);
        QCOMPARE(p.chunking.maxBytes, 5);
        QCOMPARE(p.faults.size(), std::size_t(3));
        QCOMPARE(p.faults[0].mix.size(), std::size_t(2));
        QCOMPARE(p.faults[0].mix[0].error, SimError::Http500);
        QCOMPARE(p.faults[0].mix[1].error, SimError::Http429RetryAfter);
        QCOMPARE(p.faults[0].retryAfterSeconds, 7);
        QCOMPARE(p.faults[1].type, FaultSpec::Type::Flapping);
        QCOMPARE(p.faults[1].downSeconds, 5.0);
        QCOMPARE(p.faults[1].mix.at(0).error, SimError::Http503); // the default for a down phase
        QVERIFY(std::isinf(p.faults[2].to));
        QCOMPARE(s->load.process, LoadSpec::Process::Poisson);
        QCOMPARE(s->load.concurrency, 7);
        QCOMPARE(s->load.models.size(), std::size_t(2));
        QCOMPARE(s->load.target, LoadSpec::Target::Direct);
        QCOMPARE(s->load.directProvider, QStringLiteral("p")); // defaults to the first provider
    }

    void reportsEveryMistakeAsASentence()
    {
        QStringList errors;
        const auto s = Scenario::fromJson(parse(R"({
            "providers": [
              {"name": "a", "dialect": "klingon", "port": 18001, "faults": [{"kind": "meteor"}, {"kind": "errors", "from": 5, "to": 2, "mix": {"http_999": 1}}]},
              {"name": "a", "port": 18001, "ttft_ms": {"dist": "zipf"}}
            ],
            "load": {"process": "bursty", "stream_ratio": 2}
        })"), &errors);
        QVERIFY(!s);
        const QString all = errors.join('\n');
        for (const char *needle : {"unknown dialect \"klingon\"", "unknown fault kind \"meteor\"", "\"to\" must be after \"from\"",
                                   "unknown error kind \"http_999\"", "Two providers are named \"a\"", "both use port 18001",
                                   "unknown \"dist\" \"zipf\"", "unknown \"process\" \"bursty\"", "stream_ratio"}) {
            QVERIFY2(all.contains(QLatin1String(needle)), qPrintable(QStringLiteral("missing \"%1\" in:\n%2").arg(needle, all)));
        }
    }

    void toolCallsReasoningAndWhereAStreamBreaks()
    {
        QStringList errors;
        const auto s = Scenario::fromJson(parse(R"({
            "providers": [{"name": "a", "dialect": "anthropic", "reasoning_tokens": 5, "tool_calls": true,
                           "faults": [{"kind": "errors", "inside": "tool_call", "mix": "stream_cut"},
                                      {"kind": "errors", "inside": "reasoning", "mix": "stream_stall"}]}],
            "load": {"tools": true}
        })"), &errors);
        QVERIFY2(s, qPrintable(errors.join('\n')));
        QCOMPARE(s->providers[0].reasoningTokens, 5);
        QVERIFY(s->providers[0].toolCalls);
        QCOMPARE(s->providers[0].faults[0].inside, FaultSpec::Inside::ToolCall);
        QCOMPARE(s->providers[0].faults[1].inside, FaultSpec::Inside::Reasoning);
        QVERIFY(s->load.tools);

        const auto wrong = Scenario::fromJson(parse(R"({
            "providers": [{"name": "g", "dialect": "gemini", "tool_calls": true,
                           "faults": [{"kind": "errors", "inside": "elsewhere"}, {"kind": "errors", "inside": "reasoning", "after_chars": 4}]}]
        })"), &errors);
        QVERIFY(!wrong);
        const QString all = errors.join('\n');
        for (const char *needle : {"for openai_compat and anthropic providers only", "unknown \"inside\" \"elsewhere\"", "give one"})
            QVERIFY2(all.contains(QLatin1String(needle)), qPrintable(QStringLiteral("missing \"%1\" in:\n%2").arg(needle, all)));
    }

    void aProviderServingHttpsNamesItsCertificateAndKey()
    {
        QStringList errors;
        const auto s = Scenario::fromJson(parse(R"({
            "providers": [{"name": "a", "tls": {"cert_file": "/c/cert.pem", "key_file": "/c/key.pem"}}, {"name": "b"}]
        })"), &errors);
        QVERIFY2(s, qPrintable(errors.join('\n')));
        QVERIFY(s->providers[0].servesTls());
        QCOMPARE(s->providers[0].tlsCertFile, QStringLiteral("/c/cert.pem"));
        QCOMPARE(s->providers[0].tlsKeyFile, QStringLiteral("/c/key.pem"));
        QVERIFY(!s->providers[1].servesTls());

        for (const char *tls : {R"({"cert_file": "/c/cert.pem"})", R"({"key_file": "/c/key.pem"})", R"("/c/cert.pem")", "true"}) {
            const QByteArray json = QByteArray(R"({"providers": [{"name": "a", "tls": )") + tls + "}]}";
            QVERIFY2(!Scenario::fromJson(QJsonDocument::fromJson(json).object(), &errors), tls);
            QVERIFY2(errors.join('\n').contains(QLatin1String("provider \"a\": \"tls\" must be")), qPrintable(errors.join('\n')));
        }
    }

    void aScenarioWithoutProvidersIsRejected()
    {
        QStringList errors;
        QVERIFY(!Scenario::fromJson(QJsonObject{}, &errors));
        QVERIFY(errors.join(' ').contains(QLatin1String("at least one provider")));
        QVERIFY(!Scenario::fromFile(QStringLiteral("/nonexistent/scenario.json"), &errors));
        QVERIFY(errors.join(' ').contains(QLatin1String("Cannot read")));
    }

    void distributionsStayWithinTheirClamps()
    {
        sb::test::FakeRandom random(5);
        QStringList errors;
        const auto s = Scenario::fromJson(parse(R"({"providers": [{"name": "p",
            "ttft_ms": {"dist": "lognormal", "median": 250, "sigma": 0.5, "max_clamp": 900},
            "tokens_per_second": {"dist": "normal", "mean": 50, "stddev": 40, "min_clamp": 5}}]})"), &errors);
        QVERIFY(s);
        double sum = 0;
        for (int i = 0; i < 2000; ++i) {
            const double ttft = s->providers[0].ttftMs.sample(random);
            const double tps = s->providers[0].tokensPerSecond.sample(random);
            QVERIFY(ttft >= 0 && ttft <= 900);
            QVERIFY(tps >= 5);
            sum += ttft;
        }
        // The lognormal's median is 250 and its mean 283; the clamp only trims the far tail.
        QVERIFY2(sum / 2000 > 230 && sum / 2000 < 320, qPrintable(QString::number(sum / 2000)));
    }

    void shippedDrillsParseAndSayWhatTheyRehearse()
    {
        const QDir dir(sb::test::sourcePath(QStringLiteral("resources/drills")));
        const QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files);
        QCOMPARE(files.size(), 8);
        for (const QString &file : files) {
            QStringList errors;
            const auto s = Scenario::fromFile(dir.filePath(file), &errors);
            QVERIFY2(s, qPrintable(file + QStringLiteral(": ") + errors.join('\n')));
            QCOMPARE(s->name + QStringLiteral(".json"), file);
            QVERIFY(!s->description.isEmpty());
            for (const ProviderSpec &p : s->providers)
                QVERIFY2(p.port != 0, qPrintable(file + QStringLiteral(": drills use fixed ports so a proxy config can name them")));
        }
    }

    void launchDayIsTheMissionDrill()
    {
        QStringList errors;
        const auto s = Scenario::fromFile(sb::test::sourcePath(QStringLiteral("resources/drills/launch-day.json")), &errors);
        QVERIFY(s);
        QCOMPARE(s->load.rate, 4.0);
        QCOMPARE(s->load.duration, 300.0);
        QCOMPARE(s->providers.size(), std::size_t(2));
        QCOMPARE(s->providers[0].port, quint16(18401));
        QCOMPARE(s->providers[1].port, quint16(18402));
        const FaultSpec &blackout = s->providers[0].faults.at(0);
        QCOMPARE(blackout.type, FaultSpec::Type::Blackout);
        QCOMPARE(blackout.from, 120.0);
        QCOMPARE(blackout.to, 240.0);
        QCOMPARE(blackout.mix.size(), std::size_t(3));
        QVERIFY(s->providers[1].faults.empty());
        QCOMPARE(s->report.outageFrom.value_or(-1), 120.0); // taken from the blackout
        QCOMPARE(s->report.outageTo.value_or(-1), 240.0);
    }
};

QTEST_APPLESS_MAIN(tst_SimScenario)
#include "tst_SimScenario.moc"
