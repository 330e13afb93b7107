#pragma once

#include "sim/DrillReport.h"
#include "sim/FakeProvider.h"
#include "sim/LoadDriver.h"
#include "sim/Scenario.h"
#include "sim/ScenarioClock.h"

#include <QObject>
#include <QUrl>

#include <memory>
#include <vector>

namespace sb::sim {

// One run of a scenario: its fake providers, and optionally its load through a proxy (or straight
// at an OpenAI-compatible provider), ending in a DrillReport. `switchboard-sim serve|drill` and the
// console's demo both use it.
class DrillRunner : public QObject {
    Q_OBJECT
public:
    explicit DrillRunner(Scenario scenario, const Clock &clock = SystemClock::instance(), QObject *parent = nullptr);
    ~DrillRunner() override;

    // Starts every provider on 127.0.0.1 and starts the scenario clock (t = 0).
    bool startProviders(QString *error);
    void stopProviders();
    // Starts the load. `proxy` is the proxy's base URL ("http://127.0.0.1:8400" or ".../v1"); an
    // empty URL sends the load straight to the scenario's direct provider (openai_compat only).
    // `caBundle`: certificates to trust for an https proxy instead of the system's.
    bool startLoad(const QUrl &proxy, const QByteArray &apiKey, QString *error, const QString &caBundle = {});
    // Ends the load early (a cancelled drill): requests in flight are abandoned, what completed is
    // kept for report(). finished() is not emitted.
    void stopLoad();

    const Scenario &scenario() const { return m_scenario; }
    const ScenarioClock &clock() const { return m_clock; }
    const std::vector<std::unique_ptr<FakeProvider>> &providers() const { return m_providers; }
    FakeProvider *provider(const QString &name) const;
    const LoadDriver *load() const { return m_load.get(); }
    // What the client saw so far (complete once finished() was emitted).
    DrillReport report() const;

    // The chat completions URL a base URL stands for.
    static QUrl chatEndpoint(const QUrl &base);

signals:
    void finished();

private:
    Scenario m_scenario;
    ScenarioClock m_clock;
    SplitMixRandom m_random;     // the providers' draws (thread-safe)
    SplitMixRandom m_loadRandom; // the load plan: separate, so the plan does not depend on provider traffic
    std::vector<std::unique_ptr<FakeProvider>> m_providers;
    std::unique_ptr<LoadDriver> m_load;
    std::vector<RequestRecord> m_stoppedRecords; // what a stopped load had recorded
};

} // namespace sb::sim
