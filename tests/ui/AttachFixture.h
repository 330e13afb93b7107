#pragma once

#include "sim/FakeProvider.h"
#include "FakeProviderSpecs.h"
#include "ProxyConfigs.h"
#include "MainWindow.h"
#include "attach/AttachDialog.h"
#include "control/Gateway.h"
#include "incidents/IncidentTableModel.h"
#include "incidents/IncidentsPage.h"
#include "models/ChannelTableModel.h"
#include "pages/ChannelsPage.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <vector>

// What the attach tests share: engines that run for real on loopback ports (an embedded one and the
// instances the console attaches to), the simulator's providers behind them, and ways to look at
// either side — the engine's own snapshot, and what the console's pages show of it.
namespace sb::test {

using namespace std::chrono_literals;

inline const QString kRemoteToken = QStringLiteral("remote-secret-token-7f3a");

// The proxy tests' two-channel gpt-4o config (ProxyConfigs.h) with the channels named after
// `prefix`, so a test can tell the embedded engine's rows ("local/…") from an instance's ("gpt-4o/…").
inline std::shared_ptr<EngineConfig> twoChannelConfig(const QString &prefix, const QString &primaryUrl, const QString &fallbackUrl,
                                                      const QString &token)
{
    auto c = twoChannelConfig(primaryUrl, fallbackUrl);
    c->channels[0].name = prefix + QStringLiteral("/A");
    c->channels[1].name = prefix + QStringLiteral("/B");
    c->proxy.localToken = token;
    c->probe.interval = 3600s; // heartbeats only at the first tick: the pool changes are the test's own
    return c;
}

// What one attach test runs for real: the simulator's providers on a scenario clock in real time,
// and engines on loopback ports; every engine is stopped (briefly drained) before the providers go.
class AttachLab {
public:
    AttachLab() : m_clock(SystemClock::instance(), 1.0) {}
    ~AttachLab()
    {
        for (auto it = m_engines.rbegin(); it != m_engines.rend(); ++it)
            (*it)->stop(200ms);
        m_engines.clear();
        m_providers.clear();
    }

    // A started provider (see providerSpec); null when it cannot listen.
    sim::FakeProvider *provider(const QString &name, bool failing = false)
    {
        auto spec = failing ? fakeProviderSpec(name, {always(sim::SimError::Http500)}) : fakeProviderSpec(name);
        auto provider = std::make_unique<sim::FakeProvider>(spec, m_clock, m_random);
        if (!provider->start())
            return nullptr;
        m_providers.push_back(std::move(provider));
        return m_providers.back().get();
    }

    // A started engine with twoChannelConfig(prefix, …) over the lab's two answering providers
    // ("primary" and "fallback", started with the first such engine); null, with the reason in
    // *error, when something cannot start.
    Gateway *twoChannelEngine(const QString &prefix, const QString &token, QString *error)
    {
        if (!m_primary)
            m_primary = provider(QStringLiteral("primary"));
        if (!m_fallback)
            m_fallback = provider(QStringLiteral("fallback"));
        if (!m_primary || !m_fallback) {
            *error = QStringLiteral("a simulated provider cannot listen on a loopback port");
            return nullptr;
        }
        return engine(twoChannelConfig(prefix, m_primary->baseUrl(), m_fallback->baseUrl(), token), error);
    }

    // A started engine on this configuration; null, with the reason in *error, when it cannot start.
    Gateway *engine(std::shared_ptr<EngineConfig> config, QString *error)
    {
        auto gateway = std::make_unique<Gateway>(SystemClock::instance(), SystemRandom::instance(), std::move(config));
        if (!gateway->start(error))
            return nullptr;
        m_engines.push_back(std::move(gateway));
        return m_engines.back().get();
    }

private:
    SplitMixRandom m_random{91};
    sim::ScenarioClock m_clock;
    std::vector<std::unique_ptr<sim::FakeProvider>> m_providers;
    std::vector<std::unique_ptr<Gateway>> m_engines;
    sim::FakeProvider *m_primary = nullptr;
    sim::FakeProvider *m_fallback = nullptr;
};

// Keeps what the console stores in QSettings (the tray's mute, the theme) in a file of the test's
// own, never in the user's.
inline void useOwnSettings(const QTemporaryDir &dir, const QString &application)
{
    QVERIFY(dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("SwitchboardTest"));
    QCoreApplication::setApplicationName(application);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
}

// The channel names the Channels page shows, sorted.
inline QStringList channelNames(const MainWindow &window)
{
    QStringList names;
    const ChannelTableModel *model = window.channelsPage()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        names << model->channelAt(r).name;
    names.sort();
    return names;
}

// The channels of the incidents the Incidents page lists, sorted.
inline QStringList incidentChannels(const MainWindow &window)
{
    QStringList names;
    const IncidentTableModel *model = window.incidentsPage()->model();
    for (int r = 0; r < model->rowCount(); ++r)
        names << model->incident(r)->channelName;
    names.sort();
    return names;
}

// Where the console finds a running engine's admin API.
inline RemoteGateway::Target targetOf(const Gateway &gateway, const QString &token)
{
    RemoteGateway::Target t;
    t.host = QStringLiteral("127.0.0.1");
    t.port = gateway.port();
    t.token = token;
    return t;
}

// The dialog's code path, as a user takes it: fields typed, Connect clicked, the dialog closes itself.
inline void attachThroughDialog(MainWindow &window, const RemoteGateway::Target &target)
{
    AttachDialog *dialog = window.openAttachDialog();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    auto *host = dialog->findChild<QLineEdit *>(QStringLiteral("hostEdit"));
    host->clear();
    QTest::keyClicks(host, target.host);
    dialog->findChild<QSpinBox *>(QStringLiteral("portSpin"))->setValue(target.port);
    QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("tokenEdit")), target.token);
    QVERIFY(dialog->connectButton()->isEnabled());
    QPointer<AttachDialog> alive(dialog);
    QTest::mouseClick(dialog->connectButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!alive || alive->stateText().startsWith(QStringLiteral("Connected")), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!alive, 10000); // closes itself once connected
    QVERIFY(window.isAttachedRemote());
}

// The engine's own view of one channel (not the console's).
inline ChannelSnapshot channelOf(const Gateway &gateway, int channelId)
{
    for (const ChannelSnapshot &channel : gateway.snapshot().channels) {
        if (channel.channelId == channelId)
            return channel;
    }
    return {};
}

// One non-streamed chat request through an engine's proxy port; returns the HTTP status.
inline int chatThrough(const Gateway &gateway, const QString &token, const QString &model = QStringLiteral("gpt-4o"))
{
    QNetworkAccessManager http;
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(gateway.port())));
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token.toUtf8());
    const QJsonObject body{{"model", model}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", "hi"}}}}};
    QNetworkReply *reply = http.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !finished.wait(20000))
        return 0;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status;
}

// Sends requests for `model` until the engine's breaker of `channelId` opens (its provider failing;
// the configuration's trip point low enough for a few requests). False if it never does.
inline bool driveUntilOpen(const Gateway &gateway, const QString &token, const QString &model, int channelId)
{
    for (int i = 0; i < 40; ++i) {
        if (channelOf(gateway, channelId).breaker == BreakerState::Open)
            return true;
        chatThrough(gateway, token, model);
        QCoreApplication::processEvents(); // the console keeps polling meanwhile
    }
    return channelOf(gateway, channelId).breaker == BreakerState::Open;
}

} // namespace sb::test
