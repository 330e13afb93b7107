#pragma once

#include "engine/MetricsSnapshot.h"
#include "health/HealthEvent.h"

#include <QMainWindow>
#include <QPointer>

class QListWidget;
class QStackedWidget;
class QLabel;

namespace sb {
class ChannelsPage;
class DrillOffer;
class DrillsPage;
class EngineHost;
class Gateway;
class HistoryService;
class IncidentsPage;
class OverviewPage;
class ProvidersPage;
class RequestsPage;
class SecretStorageBanner;
class SettingsPage;
} // namespace sb

// The console's frame: a sidebar of pages, the page stack and the status bar with the proxy
// address. Pages read engine snapshots delivered by queued signals; the window never waits on the
// engine: drain and re-admit are the Router's thread-safe calls, everything else is a snapshot.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    // Connects the engine's snapshots and events (queued) and the console's drain/re-admit actions.
    // Without a gateway every page shows its empty state. The gateway must outlive the window or be
    // detached by destruction (a QPointer guards it).
    void attach(sb::Gateway *gateway);
    // Everything the console shows of one running engine: attach(gateway), the history in its
    // database (Overview history mode, Incidents, Requests), its configuration store (Providers,
    // Settings) and where its API keys are kept. detachHost() before the host stops.
    void attachHost(sb::EngineHost *host);
    void detachHost();
    // The history pages read this database on their own thread (HistoryService).
    void setHistoryDatabase(const QString &path);

    QStringList pageNames() const;
    void showPage(int index);
    // Renders every page to DIR/<page>.png (README screenshots, UI tests). False if one failed.
    bool saveScreenshots(const QString &directory);

    sb::OverviewPage *overviewPage() const { return m_overview; }
    sb::ChannelsPage *channelsPage() const { return m_channels; }
    sb::IncidentsPage *incidentsPage() const { return m_incidents; }
    sb::RequestsPage *requestsPage() const { return m_requests; }
    sb::ProvidersPage *providersPage() const { return m_providers; }
    sb::DrillsPage *drillsPage() const { return m_drills; }
    sb::SettingsPage *settingsPage() const { return m_settings; }
    sb::SecretStorageBanner *secretStorageBanner() const { return m_secretBanner; }
    QString statusText() const; // the status bar's fields, joined (tests)

public slots:
    void applySnapshot(const sb::MetricsSnapshot &snapshot);
    void addEvent(const sb::HealthEvent &event);
    void setProxyAddress(const QString &baseUrl);

private:
    void addPage(const QString &name, QWidget *page);
    void buildStatusBar();

    QPointer<sb::Gateway> m_gateway;
    QListWidget *m_sidebar = nullptr;
    QStackedWidget *m_pages = nullptr;
    sb::OverviewPage *m_overview = nullptr;
    sb::ChannelsPage *m_channels = nullptr;
    sb::IncidentsPage *m_incidents = nullptr;
    sb::RequestsPage *m_requests = nullptr;
    sb::ProvidersPage *m_providers = nullptr;
    sb::DrillsPage *m_drills = nullptr;
    sb::SettingsPage *m_settings = nullptr;
    sb::SecretStorageBanner *m_secretBanner = nullptr;
    sb::DrillOffer *m_drillOffer = nullptr;
    sb::HistoryService *m_history = nullptr; // created after the pages, so deleted before them
    QString m_baseUrl;
    QLabel *m_proxyAddress = nullptr;
    QLabel *m_requestRate = nullptr;
    QLabel *m_successRate = nullptr;
    QLabel *m_ttft = nullptr;
    QLabel *m_openIncidents = nullptr;
};
