#pragma once

#include "control/MetricsSnapshot.h"
#include "remote/RemoteGateway.h"
#include "health/HealthEvent.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

class QListWidget;
class QStackedWidget;
class QLabel;
class QAction;
class QTimer;

namespace sb {
class AttachDialog;
class ChannelActions;
class ChannelsPage;
class DrillOffer;
class DrillsPage;
class EngineHost;
class FleetBanner;
class FleetPage;
class Gateway;
class HistoryService;
class IncidentsPage;
class InstanceIndicator;
class OverviewPage;
class ProvidersPage;
class RequestsPage;
class SecretStorageBanner;
class SettingsPage;
class TrayNotifier;
class UnavailableNotice;
} // namespace sb

// The console's frame: a sidebar of pages, the page stack and the status bar with the proxy
// address. Pages read engine snapshots delivered by queued signals; the window never waits on the
// engine: drain and re-admit are the Router's thread-safe calls, everything else is a snapshot.
// The pages show one source at a time — the embedded engine, or an instance attached through its
// admin API — and the strip at the top always says which.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

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
    // The tray announces what happens on the embedded engine and on an attached instance (named in
    // the title, and the embedded engine too while attached); Settings shows and sets its mute.
    void setTrayNotifier(sb::TrayNotifier *tray);

    // Attach: the pages show a running instance through its admin API instead of the embedded
    // engine, which keeps running unseen. The window owns `remote` from now on and starts it.
    // Pages that need this machine's database or configuration store say why they are empty.
    void attachRemote(sb::RemoteGateway *remote);
    void attachTo(const sb::RemoteGateway::Target &target);
    // Back to the embedded engine: the remote's rows, lines and figures are dropped, never mixed in.
    void detachRemote();
    bool isAttachedRemote() const { return m_remote != nullptr; }
    sb::RemoteGateway *remoteGateway() const { return m_remote; }
    // "Attach to instance…" (opened window-modal, deleted on close); `prefill` from --attach.
    sb::AttachDialog *openAttachDialog();
    sb::AttachDialog *openAttachDialog(const sb::RemoteGateway::Target &prefill);
    sb::InstanceIndicator *instanceIndicator() const { return m_indicator; }
    // Why page `index` is unavailable for the source shown; empty when it is available.
    QString unavailableReason(int index) const { return m_unavailable.value(index); }
    QWidget *currentPageWidget() const; // the page shown, or the notice that stands in for it

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
    sb::FleetPage *fleetPage() const { return m_fleet; }
    sb::FleetBanner *fleetBanner() const { return m_fleetBanner; }
    // Asks the source shown for /admin/fleet now (also every two seconds on its own).
    void pollFleet();
    sb::SettingsPage *settingsPage() const { return m_settings; }
    sb::SecretStorageBanner *secretStorageBanner() const { return m_secretBanner; }
    QString statusText() const; // the status bar's fields, joined (tests)

public slots:
    void applySnapshot(const sb::MetricsSnapshot &snapshot);
    void addEvent(const sb::HealthEvent &event);
    void setProxyAddress(const QString &baseUrl);

private:
    // The banner over the pages: where the keys are, when that needs saying.
    void showSecretStorage(sb::EngineHost *host);
    void addPage(const QString &name, QWidget *page);
    void buildStatusBar();
    void buildInstanceMenu();
    void showRow(int row);
    void connectEmbedded();
    void disconnectSource();
    void setActions(sb::ChannelActions *actions);
    void clearLiveViews();
    void setRemotePagesUnavailable(bool unavailable);
    void updateInstanceIndicator();

    QPointer<sb::Gateway> m_gateway;
    sb::RemoteGateway *m_remote = nullptr;     // owned while attached
    sb::ChannelActions *m_actions = nullptr;   // the shown source's eject/readmit/probe
    QList<QMetaObject::Connection> m_sourceConnections;
    // Queued snapshots from the previous source may still be on their way when the source changes;
    // each connection carries the generation it belongs to, and stale ones are dropped.
    quint64 m_sourceGeneration = 0;
    QString m_remoteMessage;
    QHash<int, QString> m_unavailable;         // sidebar row -> why it is unavailable
    sb::InstanceIndicator *m_indicator = nullptr;
    sb::UnavailableNotice *m_notice = nullptr;
    QAction *m_attachAction = nullptr;
    QAction *m_detachAction = nullptr;
    QListWidget *m_sidebar = nullptr;
    QStackedWidget *m_pages = nullptr;
    sb::OverviewPage *m_overview = nullptr;
    sb::ChannelsPage *m_channels = nullptr;
    sb::IncidentsPage *m_incidents = nullptr;
    sb::RequestsPage *m_requests = nullptr;
    sb::ProvidersPage *m_providers = nullptr;
    sb::DrillsPage *m_drills = nullptr;
    sb::FleetPage *m_fleet = nullptr;
    sb::SettingsPage *m_settings = nullptr;
    sb::FleetBanner *m_fleetBanner = nullptr;
    QTimer *m_fleetPoll = nullptr;
    sb::SecretStorageBanner *m_secretBanner = nullptr;
    sb::DrillOffer *m_drillOffer = nullptr;
    sb::HistoryService *m_history = nullptr; // created after the pages, so deleted before them
    QPointer<sb::TrayNotifier> m_tray;
    QString m_baseUrl;
    QLabel *m_proxyAddress = nullptr;
    QLabel *m_requestRate = nullptr;
    QLabel *m_successRate = nullptr;
    QLabel *m_ttft = nullptr;
    QLabel *m_openIncidents = nullptr;
};
