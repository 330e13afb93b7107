#include "DrillHarness.h"

#include "sim/DrillRunner.h"
#include "TestPaths.h"

#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>

namespace sb::sim::test {

DrillOutcome runShippedDrill(const QString &name, double timeScale)
{
    DrillOutcome out;
    QStringList errors;
    auto scenario = Scenario::fromFile(sb::test::sourcePath(QStringLiteral("resources/drills/%1.json").arg(name)), &errors);
    if (!scenario) {
        out.error = errors.join(QLatin1Char('\n'));
        return out;
    }
    // The user's configuration stands in as an empty one; the drill must put it back.
    auto before = std::make_shared<EngineConfig>();
    before->proxy.listenPort = 0;
    EngineConfigPtr original = before;
    SplitMixRandom random(99);
    Gateway gateway(SystemClock::instance(), random, original);
    if (!gateway.start(&out.error))
        return out;

    EmbeddedDrill drill(gateway, *scenario, timeScale);
    QObject::connect(&drill, &EmbeddedDrill::failed, &drill, [&](const QString &error) { out.error = error; });
    QObject::connect(&drill, &EmbeddedDrill::aboutToRestore, &drill, [&] {
        out.snapshot = gateway.snapshot();
        for (const auto &p : drill.runner()->providers()) {
            out.providers.insert(p->spec().name, p->stats());
            out.admittedPerKey.insert(p->spec().name, p->keyLimiter().admittedPerKey());
        }
        for (const auto &p : drill.drillConfig()->providers)
            if (auto ring = gateway.router().keyRing(p.id))
                out.keyRings.insert(p.name, ring->stats());
    });
    QSignalSpy finished(&drill, &EmbeddedDrill::finished);
    drill.start();
    if (!out.error.isEmpty())
        return out;
    const int budgetMs = static_cast<int>(scenario->load.duration / timeScale * 1000.0 * 4 + 60'000);
    if (!finished.wait(budgetMs)) {
        out.error = QStringLiteral("the drill did not finish within %1 ms").arg(budgetMs);
        return out;
    }
    out.report = finished.first().at(0).value<DrillReport>();
    out.drillConfig = drill.drillConfig();
    out.roundedFields = drill.roundedFields();
    out.configRestored = gateway.config() == original;
    gateway.stop(std::chrono::milliseconds(500));

    QFile json(sb::test::artifactPath(QStringLiteral("drill-%1-x%2.json").arg(name).arg(timeScale)));
    if (json.open(QIODevice::WriteOnly | QIODevice::Truncate))
        json.write(QJsonDocument(out.report.toJson()).toJson());
    return out;
}

} // namespace sb::sim::test
