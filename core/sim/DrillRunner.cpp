#include "sim/DrillRunner.h"

#include "sim/SimText.h"
#include "sim/StreamRescueScore.h"

namespace sb::sim {

DrillRunner::DrillRunner(Scenario scenario, const Clock &clock, QObject *parent)
    : QObject(parent), m_scenario(std::move(scenario)), m_clock(clock, m_scenario.timeScale), m_random(m_scenario.seed),
      m_loadRandom(m_scenario.seed ^ 0x5EED5EED5EED5EEDULL)
{
    if (m_scenario.report.primaryChannels.isEmpty()) {
        // Without a proxy config to go by, the providers with outages are the primaries.
        for (const ProviderSpec &p : m_scenario.providers) {
            for (const FaultSpec &f : p.faults) {
                if (f.type == FaultSpec::Type::Blackout || f.type == FaultSpec::Type::Flapping) {
                    m_scenario.report.primaryChannels.append(p.name);
                    break;
                }
            }
        }
    }
}

DrillRunner::~DrillRunner()
{
    m_load.reset();
    stopProviders();
}

bool DrillRunner::startProviders(QString *error)
{
    m_clock.restart();
    for (const ProviderSpec &spec : m_scenario.providers) {
        auto provider = std::make_unique<FakeProvider>(spec, m_clock, m_random, 2);
        QString why;
        if (!provider->start(&why)) {
            if (error)
                *error = QStringLiteral("Provider \"%1\" cannot listen on 127.0.0.1:%2 (%3); free the port or set \"port\": 0.")
                             .arg(spec.name)
                             .arg(spec.port)
                             .arg(why);
            stopProviders();
            return false;
        }
        m_providers.push_back(std::move(provider));
    }
    return true;
}

void DrillRunner::stopProviders()
{
    for (auto &p : m_providers)
        p->stop();
    m_providers.clear();
}

FakeProvider *DrillRunner::provider(const QString &name) const
{
    for (const auto &p : m_providers) {
        if (p->spec().name == name)
            return p.get();
    }
    return nullptr;
}

QUrl DrillRunner::chatEndpoint(const QUrl &base)
{
    QUrl url = base;
    QString path = url.path();
    if (path.endsWith(QLatin1String("/chat/completions")))
        return url;
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    if (!path.endsWith(QLatin1String("/v1")))
        path += QStringLiteral("/v1");
    url.setPath(path + QStringLiteral("/chat/completions"));
    return url;
}

bool DrillRunner::startLoad(const QUrl &proxy, const QByteArray &apiKey, QString *error, const QString &caBundle)
{
    QUrl endpoint;
    QString trusted = caBundle;
    if (proxy.isEmpty()) {
        const FakeProvider *target = provider(m_scenario.load.directProvider.isEmpty() ? m_scenario.providers.front().name
                                                                                       : m_scenario.load.directProvider);
        if (!target || target->spec().dialect != QLatin1String("openai_compat")) {
            if (error)
                *error = QStringLiteral("A direct drill needs a running openai_compat provider as \"direct_provider\"; "
                                        "give --proxy URL to drill through Switchboard instead.");
            return false;
        }
        endpoint = chatEndpoint(QUrl(target->baseUrl()));
        trusted = target->spec().tlsCertFile; // a provider serving HTTPS signed its own certificate
    } else {
        if (!proxy.isValid() || proxy.scheme().isEmpty()) {
            if (error)
                *error = QStringLiteral("The proxy URL \"%1\" is not valid; write it like http://127.0.0.1:8400/v1.")
                             .arg(proxy.toString());
            return false;
        }
        endpoint = chatEndpoint(proxy);
    }
    m_load = std::make_unique<LoadDriver>(m_scenario.load, m_clock, m_loadRandom, endpoint, apiKey);
    m_load->setCaBundle(trusted);
    connect(m_load.get(), &LoadDriver::finished, this, &DrillRunner::finished);
    m_load->start();
    return true;
}

void DrillRunner::stopLoad()
{
    if (!m_load)
        return;
    disconnect(m_load.get(), nullptr, this, nullptr);
    m_stoppedRecords = m_load->records();
    m_load.reset();
}

DrillReport DrillRunner::report() const
{
    const std::vector<RequestRecord> &records = m_load ? m_load->records() : m_stoppedRecords;
    DrillReport report = DrillReport::compute(m_scenario.name, m_scenario.timeScale, m_scenario.load.duration, records, m_scenario.report);
    // What the providers broke, from their own record, and every whole answer their passages give.
    std::vector<QByteArray> broken, continued;
    QSet<QByteArray> whole, wholeCalls;
    std::vector<double> fallbackTtft; // drawn as the scenario draws the fallbacks' TTFT
    SplitMixRandom draws(m_scenario.seed);
    for (std::size_t i = 0; i < m_providers.size(); ++i) {
        for (const FakeProvider::SentAnswer &answer : m_providers[i]->stats().answers) {
            if (!answer.complete && answer.partial.isEmpty() && !answer.text.isEmpty())
                broken.push_back(answer.text);
            if (answer.complete && !answer.partial.isEmpty())
                continued.push_back(answer.partial);
            if (answer.complete && !answer.toolArguments.isEmpty())
                wholeCalls.insert(answer.toolArguments);
        }
        const ProviderSpec &spec = m_scenario.providers[i];
        if (!m_scenario.report.primaryChannels.contains(spec.name))
            for (int n = 0; n < 1001; ++n)
                fallbackTtft.push_back(spec.ttftMs.sample(draws));
        for (quint64 seed = 0; seed < SimText::kDistinctSeeds; ++seed)
            whole.insert(SimText::join(SimText::tokens(spec.language, spec.completionTokens, seed)));
    }
    if (const std::optional<StreamRescueScore> score = StreamRescueScore::compute(records, broken, continued, whole, wholeCalls,
                                                                                         Percentiles::of(fallbackTtft).p50)) {
        report.streamRescueJson = score->toJson();
        report.streamRescueText = score->toText();
    }
    return report;
}

} // namespace sb::sim
