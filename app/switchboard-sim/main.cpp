// switchboard-sim: fake LLM providers with scripted incidents, and drills through a Switchboard proxy.
//   switchboard-sim serve SCENARIO.json            run the scenario's providers on 127.0.0.1 until stopped
//   switchboard-sim drill SCENARIO.json --proxy URL  providers + load through the proxy, then the report
//   switchboard-sim drill SCENARIO.json --embedded   the same through a routing engine in this process,
//                                                    set up from the scenario's "proxy" section
//   switchboard-sim check SCENARIO.json            validate a scenario

#include "sim/DrillRunner.h"
#include "sim/EmbeddedDrill.h"
#include "sim/Scenario.h"

#include "control/Gateway.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QTextStream>
#include <QTimer>

#include <cmath>
#include <csignal>
#include <optional>

using namespace sb::sim;

namespace {

void onSignal(int)
{
    QCoreApplication::quit();
}

QString describe(const Scenario &s)
{
    QString out = QStringLiteral("%1: %2\n").arg(s.name, s.description);
    for (const ProviderSpec &p : s.providers) {
        out += QStringLiteral("  provider %1 (%2) port %3, models %4, %5 fault(s)\n")
                   .arg(p.name, p.dialect)
                   .arg(p.port)
                   .arg(p.models.join(QLatin1Char(',')))
                   .arg(p.faults.size());
    }
    out += QStringLiteral("  load %1 req/s (%2) for %3 s, concurrency %4, stream ratio %5, time scale x%6\n")
               .arg(s.load.rate)
               .arg(s.load.process == LoadSpec::Process::Poisson ? QStringLiteral("poisson") : QStringLiteral("constant"))
               .arg(s.load.duration)
               .arg(s.load.concurrency)
               .arg(s.load.streamRatio)
               .arg(s.timeScale);
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    // A proxy that drops a connection the simulator is writing to is a fault to report, never a
    // reason to end the run (a TLS provider's OpenSSL writes alerts on its own).
    std::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("switchboard-sim"));
    QTextStream out(stdout);
    QTextStream err(stderr);

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Fake LLM providers with scripted incidents, and drills through a Switchboard proxy."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("serve | drill | check"));
    parser.addPositionalArgument(QStringLiteral("scenario"), QStringLiteral("Scenario JSON file (see SCENARIO_FORMAT.md)."));
    const QCommandLineOption proxyOption(QStringLiteral("proxy"), QStringLiteral("Switchboard's base URL, e.g. http://127.0.0.1:8400/v1."),
                                         QStringLiteral("URL"));
    const QCommandLineOption directOption(QStringLiteral("direct"), QStringLiteral("Drill straight against the scenario's direct provider."));
    const QCommandLineOption embeddedOption(QStringLiteral("embedded"),
                                            QStringLiteral("Drill a routing engine run in this process, set up from the scenario's \"proxy\" section."));
    const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("Also write the report as JSON to FILE."), QStringLiteral("FILE"));
    const QCommandLineOption scaleOption(QStringLiteral("time-scale"), QStringLiteral("Run this many times faster than real time."),
                                         QStringLiteral("FACTOR"));
    const QCommandLineOption keyOption(QStringLiteral("api-key"), QStringLiteral("Bearer token the load sends (the proxy's local token)."),
                                       QStringLiteral("TOKEN"));
    const QCommandLineOption durationOption(QStringLiteral("duration"), QStringLiteral("serve: stop after this many scenario seconds."),
                                            QStringLiteral("SECONDS"));
    parser.addOptions({proxyOption, directOption, embeddedOption, jsonOption, scaleOption, keyOption, durationOption});
    parser.process(app);

    const QStringList args = parser.positionalArguments();
    if (args.size() != 2 || !QStringList({"serve", "drill", "check"}).contains(args[0])) {
        err << "usage: switchboard-sim serve|drill|check SCENARIO.json [--proxy URL | --direct] [--json FILE] [--time-scale X]\n";
        return 2;
    }
    QStringList errors;
    std::optional<Scenario> scenario = Scenario::fromFile(args[1], &errors);
    if (!scenario) {
        for (const QString &e : errors)
            err << e << '\n';
        return 1;
    }
    if (parser.isSet(scaleOption)) {
        bool ok = false;
        const double scale = parser.value(scaleOption).toDouble(&ok);
        if (!ok || scale <= 0) {
            err << "--time-scale needs a positive number, e.g. 10.\n";
            return 2;
        }
        scenario->timeScale = scale;
    }
    const QString command = args[0];
    if (command == QLatin1String("check")) {
        out << describe(*scenario);
        return 0;
    }
    const int targets = int(parser.isSet(proxyOption)) + int(parser.isSet(directOption)) + int(parser.isSet(embeddedOption));
    if (command == QLatin1String("drill") && targets != 1) {
        err << "drill needs exactly one of --proxy URL, --direct or --embedded.\n";
        return 2;
    }

    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);

    if (command == QLatin1String("drill") && parser.isSet(embeddedOption)) {
        auto config = std::make_shared<sb::EngineConfig>();
        config->proxy.listenPort = 0;
        sb::Gateway gateway(sb::SystemClock::instance(), sb::SystemRandom::instance(), config);
        QString error;
        if (!gateway.start(&error)) {
            err << error << '\n';
            return 1;
        }
        EmbeddedDrill drill(gateway, *scenario, scenario->timeScale);
        std::optional<DrillReport> report;
        QObject::connect(&drill, &EmbeddedDrill::failed, &app, [&](const QString &why) {
            error = why;
            QCoreApplication::quit();
        });
        QObject::connect(&drill, &EmbeddedDrill::finished, &app, [&](const DrillReport &r, bool) {
            report = r;
            QCoreApplication::quit();
        });
        out << "engine at " << gateway.baseUrl() << '\n';
        out.flush();
        QTimer::singleShot(0, &drill, &EmbeddedDrill::start);
        app.exec();
        drill.cancel(); // a signal ended it early: hand the report so far
        gateway.stop(std::chrono::seconds(1));
        if (!error.isEmpty()) {
            err << error << '\n';
            return 1;
        }
        if (!report)
            return 1;
        out << report->toText();
        if (parser.isSet(jsonOption)) {
            QFile file(parser.value(jsonOption));
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
                err << "Cannot write the JSON report to " << file.fileName() << ": " << file.errorString() << '\n';
                return 1;
            }
            file.write(QJsonDocument(report->toJson()).toJson());
        }
        return 0;
    }

    DrillRunner runner(*scenario);
    QString error;
    if (!runner.startProviders(&error)) {
        err << error << '\n';
        return 1;
    }
    for (const auto &p : runner.providers())
        out << "provider " << p->spec().name << " (" << p->spec().dialect << ") at " << p->baseUrl() << '\n';
    out.flush();

    if (command == QLatin1String("serve")) {
        if (parser.isSet(durationOption)) {
            const double seconds = parser.value(durationOption).toDouble();
            QTimer::singleShot(static_cast<int>(std::ceil(runner.clock().toRealMs(seconds * 1000.0))), &app, &QCoreApplication::quit);
        }
        return app.exec();
    }

    const QUrl proxy = parser.isSet(proxyOption) ? QUrl(parser.value(proxyOption)) : QUrl();
    if (!runner.startLoad(proxy, parser.value(keyOption).toUtf8(), &error)) {
        err << error << '\n';
        return 1;
    }
    QObject::connect(&runner, &DrillRunner::finished, &app, &QCoreApplication::quit);
    app.exec();
    const DrillReport report = runner.report();
    out << report.toText();
    if (parser.isSet(jsonOption)) {
        QFile file(parser.value(jsonOption));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            err << "Cannot write the JSON report to " << file.fileName() << ": " << file.errorString() << '\n';
            return 1;
        }
        file.write(QJsonDocument(report.toJson()).toJson());
    }
    return 0;
}
