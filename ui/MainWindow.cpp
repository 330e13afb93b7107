#include "MainWindow.h"

#include "ConsoleStyle.h"
#include "TrayNotifier.h"
#include "attach/AttachDialog.h"
#include "attach/EmbeddedChannelActions.h"
#include "attach/InstanceIndicator.h"
#include "attach/RemoteChannelActions.h"
#include "attach/UnavailableNotice.h"
#include "drills/DrillOffer.h"
#include "drills/DrillsPage.h"
#include "engine/EngineHost.h"
#include "fleet/FleetBanner.h"
#include "fleet/FleetPage.h"
#include "fleet/FleetReport.h"
#include "control/Gateway.h"
#include "history/HistoryService.h"
#include "incidents/IncidentsPage.h"
#include "pages/ChannelsPage.h"
#include "pages/OverviewPage.h"
#include "providers/ProvidersPage.h"
#include "requests/RequestsPage.h"
#include "settings/SettingsPage.h"
#include "store/ConfigStore.h"
#include "widgets/SecretStorageBanner.h"

#include <QApplication>
#include <QClipboard>
#include <QCursor>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>

namespace {
// The sidebar's order (ARCHITECTURE.md, "Console conventions").
constexpr int kIncidentsPage = 2;
constexpr int kRequestsPage = 3;
constexpr int kProvidersPage = 4;
constexpr int kDrillsPage = 5;
// Often enough that a Redis outage shows within a poll or two, rarely enough that an instance
// answering /admin/fleet (a Redis round trip) never notices the console.
constexpr int kFleetPollMs = 2000;
} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(tr("Switchboard — embedded engine"));
    resize(1280, 800);

    auto *central = new QWidget(this);
    auto *layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    m_sidebar = new QListWidget(central);
    m_sidebar->setObjectName(QStringLiteral("sidebar"));
    m_sidebar->setFixedWidth(170);
    m_sidebar->setFrameShape(QFrame::NoFrame);
    m_sidebar->setIconSize(QSize(18, 18));
    m_sidebar->setFocusPolicy(Qt::NoFocus); // no focus frame inside the selected item
    m_sidebar->setStyleSheet(QStringLiteral(
        "QListWidget#sidebar { background: palette(alternate-base); padding-top: 8px; font-size: 14px; }"
        // The border makes the style sheet lay out every item itself, so the padding indents the
        // unselected ones too (without it only the selected one, which has a background, was indented).
        "QListWidget#sidebar::item { padding: 9px 14px; border: 0px; }"
        "QListWidget#sidebar::item:selected { background: palette(highlight); color: palette(highlighted-text); }"));

    // Right of the sidebar: the warnings that concern every page (keys kept in the database file,
    // the first-start drill offer) above the page stack.
    auto *right = new QVBoxLayout;
    right->setContentsMargins(0, 0, 0, 0);
    right->setSpacing(0);
    m_secretBanner = new sb::SecretStorageBanner(central);
    m_fleetBanner = new sb::FleetBanner(central);
    m_drillOffer = new sb::DrillOffer(central);
    m_drillOffer->hide(); // offered only while the demo configuration runs
    m_pages = new QStackedWidget(central);
    m_indicator = new sb::InstanceIndicator(central);
    right->addWidget(m_indicator); // first: whatever else is on screen, which instance it belongs to
    right->addWidget(m_fleetBanner); // the instance shown decides alone: that concerns every page
    right->addWidget(m_secretBanner);
    right->addWidget(m_drillOffer);
    right->addWidget(m_pages, 1);
    layout->addWidget(m_sidebar);
    layout->addLayout(right, 1);
    setCentralWidget(central);

    m_overview = new sb::OverviewPage(this);
    m_channels = new sb::ChannelsPage(this);
    addPage(tr("Overview"), m_overview);
    addPage(tr("Channels"), m_channels);
    m_incidents = new sb::IncidentsPage(nullptr, this);
    m_requests = new sb::RequestsPage(nullptr, this);
    m_providers = new sb::ProvidersPage(this);
    m_drills = new sb::DrillsPage(this);
    m_fleet = new sb::FleetPage(this);
    m_settings = new sb::SettingsPage(this);
    addPage(tr("Incidents"), m_incidents);
    addPage(tr("Requests"), m_requests);
    addPage(tr("Providers"), m_providers);
    addPage(tr("Drills"), m_drills);
    addPage(tr("Fleet"), m_fleet);
    addPage(tr("Settings"), m_settings);
    // Stands in for a page that needs this machine's database or configuration while attached;
    // after the pages, so page i stays widget i of the stack.
    m_notice = new sb::UnavailableNotice(m_pages);
    m_pages->addWidget(m_notice);

    m_fleetPoll = new QTimer(this);
    m_fleetPoll->setInterval(kFleetPollMs);
    connect(m_fleetPoll, &QTimer::timeout, this, &MainWindow::pollFleet);
    m_fleetPoll->start();

    connect(m_sidebar, &QListWidget::currentRowChanged, this, &MainWindow::showRow);
    m_sidebar->setCurrentRow(0);
    buildStatusBar();
    buildInstanceMenu();
    connect(m_indicator, &sb::InstanceIndicator::attachRequested, this, [this] { openAttachDialog(); });
    connect(m_indicator, &sb::InstanceIndicator::detachRequested, this, &MainWindow::detachRemote);
    connect(m_notice, &sb::UnavailableNotice::detachRequested, this, &MainWindow::detachRemote);
    connect(m_settings, &sb::SettingsPage::detachRequested, this, &MainWindow::detachRemote);

    connect(m_channels, &sb::ChannelsPage::openProviderRequested, this, [this](int providerId) {
        showPage(kProvidersPage);
        m_providers->showProvider(providerId);
    });
    // The shown source's actions: the embedded Router at once, an attached instance over its admin API.
    connect(m_channels, &sb::ChannelsPage::probeRequested, this, [this](int channelId) {
        if (m_actions)
            m_actions->probe(channelId);
    });
    connect(m_incidents, &sb::IncidentsPage::showRequestsRequested, this, [this](int channelId, qint64 from, qint64 to) {
        m_requests->showRequests(channelId, from, to);
        showPage(kRequestsPage);
    });
    connect(m_incidents, &sb::IncidentsPage::openIncidentsChanged, this, [this](int open) {
        m_sidebar->item(kIncidentsPage)->setText(open ? tr("Incidents  %1").arg(open) : tr("Incidents"));
    });
    connect(m_drillOffer, &sb::DrillOffer::runRequested, this, [this](const QString &drill, double timeScale) {
        showPage(kDrillsPage);
        QString error;
        if (m_drills->runDrill(drill, timeScale, &error))
            m_drillOffer->hide();
        else
            statusBar()->showMessage(error, 8000);
    });
    connect(m_drillOffer, &sb::DrillOffer::dismissed, m_drillOffer, &QWidget::hide);
    // Connected once here: Qt refuses Qt::UniqueConnection for a lambda, so connecting it in attach()
    // never took effect. The drill's configuration is gone again: the rows' names follow.
    connect(m_drills, &sb::DrillsPage::drillFinished, this, [this] {
        if (m_gateway && !m_remote)
            m_channels->setConfig(m_gateway->config());
    });
    connect(m_channels, &sb::ChannelsPage::drainRequested, this, [this](int channelId) {
        if (m_actions)
            m_actions->eject(channelId);
    });
    connect(m_channels, &sb::ChannelsPage::readmitRequested, this, [this](int channelId) {
        if (m_actions)
            m_actions->readmit(channelId);
    });
    updateInstanceIndicator();
}

MainWindow::~MainWindow()
{
    // Before the widgets go: a stopping RemoteGateway reports its state, and nothing may be left to
    // receive that report half-destroyed.
    if (m_remote) {
        m_remote->disconnect(this);
        delete m_remote;
        m_remote = nullptr;
    }
}

void MainWindow::attach(sb::Gateway *gateway)
{
    if (m_gateway)
        disconnect(m_gateway, nullptr, this, nullptr);
    m_gateway = gateway;
    qRegisterMetaType<sb::MetricsSnapshot>();
    qRegisterMetaType<sb::HealthEvent>();
    if (gateway) {
        connect(gateway, &sb::Gateway::listenFailed, this, [this](const QString &message) {
            statusBar()->showMessage(message, 15000);
        }, Qt::QueuedConnection);
        // Not a source connection: the embedded proxy keeps serving while another instance is shown,
        // and its alerts still matter then — named, so they are not taken for the instance's.
        connect(gateway, &sb::Gateway::healthEvent, this, [this](const sb::HealthEvent &event) {
            if (m_tray)
                m_tray->addEventFrom(m_remote ? tr("Embedded engine") : QString(), event);
        }, Qt::QueuedConnection);
        m_providers->setConfig(gateway->config());
        m_drills->attach(gateway);
    }
    if (!m_remote) // attached elsewhere, the embedded engine waits unseen until detachRemote()
        connectEmbedded();
}

void MainWindow::connectEmbedded()
{
    disconnectSource();
    setActions(m_gateway ? new sb::EmbeddedChannelActions(m_gateway, this) : nullptr);
    if (!m_gateway) {
        setProxyAddress(QString());
        m_drillOffer->hide();
        return;
    }
    const quint64 generation = m_sourceGeneration;
    m_sourceConnections << connect(m_gateway, &sb::Gateway::snapshotReady, this, [this, generation](const sb::MetricsSnapshot &snapshot) {
        if (generation == m_sourceGeneration)
            applySnapshot(snapshot);
    }, Qt::QueuedConnection);
    m_sourceConnections << connect(m_gateway, &sb::Gateway::healthEvent, this, [this, generation](const sb::HealthEvent &event) {
        if (generation == m_sourceGeneration)
            addEvent(event);
    }, Qt::QueuedConnection);
    m_channels->setConfig(m_gateway->config());
    m_drillOffer->setVisible(m_gateway->config()->demo);
    setProxyAddress(m_gateway->baseUrl());
    pollFleet();
}

void MainWindow::disconnectSource()
{
    for (const QMetaObject::Connection &connection : std::as_const(m_sourceConnections))
        disconnect(connection);
    m_sourceConnections.clear();
    ++m_sourceGeneration;
    m_fleet->clear();
    m_fleetBanner->clear();
}

void MainWindow::pollFleet()
{
    const quint64 generation = m_sourceGeneration;
    auto show = [this, generation](const QJsonObject &body) {
        if (generation != m_sourceGeneration)
            return; // an answer from the source shown before
        const sb::FleetReport report = sb::FleetReport::fromJson(body);
        m_fleet->showReport(report);
        m_fleetBanner->showReport(report);
    };
    if (m_remote)
        m_remote->requestFleet(this, show);
    else if (m_gateway)
        m_gateway->requestFleet(this, show);
}

void MainWindow::setActions(sb::ChannelActions *actions)
{
    delete m_actions;
    m_actions = actions;
    if (actions) {
        connect(actions, &sb::ChannelActions::finished, this, [this](bool, const QString &message) {
            statusBar()->showMessage(message, 8000);
        });
    }
}

void MainWindow::attachRemote(sb::RemoteGateway *remote)
{
    if (!remote)
        return;
    if (m_remote && m_remote != remote) { // attaching elsewhere: the previous instance goes first
        m_remote->disconnect(this);
        m_remote->stop();
        m_remote->deleteLater();
    }
    disconnectSource();
    m_remote = remote;
    remote->setParent(this);
    m_remoteMessage.clear();
    clearLiveViews();
    // Same thread: direct connections, so nothing of this source can arrive after a detach.
    m_sourceConnections << connect(remote, &sb::RemoteGateway::snapshotReady, this, &MainWindow::applySnapshot);
    m_sourceConnections << connect(remote, &sb::RemoteGateway::healthEvent, this, &MainWindow::addEvent);
    m_sourceConnections << connect(remote, &sb::RemoteGateway::namesReady, m_channels, &sb::ChannelsPage::setConfig);
    m_sourceConnections << connect(remote, &sb::RemoteGateway::newHealthEvent, this, [this, remote](const sb::HealthEvent &event) {
        if (m_tray)
            m_tray->addEventFrom(remote->displayName(), event);
    });
    m_sourceConnections << connect(remote, &sb::RemoteGateway::stateChanged, this,
                                   [this](sb::RemoteGateway::State, const QString &message) {
                                       m_remoteMessage = message;
                                       updateInstanceIndicator();
                                   });
    setActions(new sb::RemoteChannelActions(remote, this));
    // Until the instance has told its route and provider names (namesReady), rows show ids, never
    // the embedded engine's names.
    m_channels->setConfig(nullptr);
    m_channels->setProvidersLinked(false);
    m_overview->setHistoryUnavailable(tr("History mode is not available for an attached instance: its history is in "
                                         "the database on its own machine."));
    m_incidents->watchEvents();
    m_drillOffer->hide();    // the offer runs a drill on the embedded engine
    m_secretBanner->hide();  // it is about where this machine keeps its keys, not the instance's
    m_settings->setAttachedInstance(remote->displayName());
    setRemotePagesUnavailable(true);
    setProxyAddress(remote->displayName() + QStringLiteral("/v1")); // the admin API shares the proxy's port
    remote->start();
    pollFleet();
}

void MainWindow::attachTo(const sb::RemoteGateway::Target &target)
{
    attachRemote(new sb::RemoteGateway(sb::SystemClock::instance(), target, this));
}

void MainWindow::detachRemote()
{
    if (!m_remote)
        return;
    disconnectSource();
    setActions(nullptr); // they point at the instance about to go
    m_remote->disconnect(this);
    m_remote->stop();
    m_remote->deleteLater();
    m_remote = nullptr;
    clearLiveViews();
    m_channels->setProvidersLinked(true);
    m_overview->setHistory(m_history);
    m_incidents->setHistory(m_history);
    m_secretBanner->setVisible(!m_secretBanner->text().isEmpty());
    m_settings->setAttachedInstance(QString());
    setRemotePagesUnavailable(false);
    connectEmbedded();
}

sb::AttachDialog *MainWindow::openAttachDialog()
{
    auto *dialog = new sb::AttachDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (sb::RemoteGateway *remote = dialog->takeGateway())
            attachRemote(remote);
    });
    dialog->open();
    return dialog;
}

sb::AttachDialog *MainWindow::openAttachDialog(const sb::RemoteGateway::Target &prefill)
{
    sb::AttachDialog *dialog = openAttachDialog();
    dialog->setTarget(prefill);
    return dialog;
}

void MainWindow::clearLiveViews()
{
    m_overview->clearLive();
    m_channels->applySnapshot(sb::MetricsSnapshot{}); // an empty snapshot removes every row
    m_requestRate->setText(tr("— req/s"));
    m_successRate->setText(tr("— % (5m)"));
    m_ttft->setText(tr("TTFT p95 —"));
    m_openIncidents->setText(tr("no open incidents"));
}

void MainWindow::setRemotePagesUnavailable(bool unavailable)
{
    m_unavailable.clear();
    if (unavailable) {
        // Decided per page: each of these reads this machine's database or configuration store,
        // which belongs to the embedded engine; the admin API offers no remote equivalent.
        m_unavailable.insert(kRequestsPage, tr("Requests history is not available for an attached instance: every "
                                               "request is recorded in the history database on the instance's own "
                                               "machine. Overview, Channels and Incidents show the instance live."));
        m_unavailable.insert(kProvidersPage, tr("Providers, keys, channels and routes are not editable for an attached "
                                                "instance: its configuration lives on its own machine (its --config file "
                                                "or database). Change it there; the instance applies a reload live."));
        m_unavailable.insert(kDrillsPage, tr("Drills are not available for an attached instance: a drill swaps the running "
                                             "configuration for a scripted one, which must never happen to an instance "
                                             "you are watching. Go back to the embedded engine to run one there."));
        // Settings stays: its Appearance group is the console's own (SettingsPage::setAttachedInstance).
    }
    for (int row = 0; row < m_sidebar->count(); ++row) {
        QListWidgetItem *item = m_sidebar->item(row);
        const QString reason = m_unavailable.value(row);
        item->setToolTip(reason);
        item->setForeground(reason.isEmpty() ? QBrush() : m_sidebar->palette().brush(QPalette::PlaceholderText));
    }
    showRow(m_sidebar->currentRow());
}

void MainWindow::showRow(int row)
{
    const QString reason = m_unavailable.value(row);
    if (reason.isEmpty()) {
        m_pages->setCurrentIndex(row);
        return;
    }
    m_notice->showReason(m_sidebar->item(row)->text(), reason);
    m_pages->setCurrentWidget(m_notice);
}

QWidget *MainWindow::currentPageWidget() const
{
    return m_pages->currentWidget();
}

void MainWindow::buildInstanceMenu()
{
    QMenu *menu = menuBar()->addMenu(tr("&Instance"));
    m_attachAction = menu->addAction(tr("&Attach to instance…"), this, [this] { openAttachDialog(); });
    m_attachAction->setObjectName(QStringLiteral("attachAction"));
    m_attachAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    m_detachAction = menu->addAction(tr("&Back to the embedded engine"), this, &MainWindow::detachRemote);
    m_detachAction->setObjectName(QStringLiteral("detachAction"));
    m_detachAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
}

void MainWindow::updateInstanceIndicator()
{
    if (m_remote) {
        const sb::RemoteGateway::State state = m_remote->state();
        m_indicator->showAttached(m_remote->displayName(), state, m_remoteMessage);
        setWindowTitle(tr("Switchboard — attached to %1 (%2)").arg(m_remote->displayName(), sb::InstanceIndicator::stateName(state)));
    } else {
        m_indicator->showEmbedded(m_baseUrl);
        setWindowTitle(tr("Switchboard — embedded engine"));
    }
    if (m_detachAction)
        m_detachAction->setEnabled(m_remote != nullptr);
}

void MainWindow::attachHost(sb::EngineHost *host)
{
    attach(host ? host->gateway() : nullptr);
    if (!host)
        return;
    setHistoryDatabase(host->databasePath());
    m_providers->setConfigStore(host->configStore());
    m_settings->setHost(host);
    showSecretStorage(host);
    connect(host, &sb::EngineHost::secretStorageChanged, m_secretBanner, [this, host] { showSecretStorage(host); });
}

void MainWindow::showSecretStorage(sb::EngineHost *host)
{
    m_secretBanner->setWarning(host->secretStorageWarning(), host->databasePath(), host->secretsReadable());
}

void MainWindow::detachHost()
{
    detachRemote(); // the pages go back to the engine that is about to stop, then let go of it too
    m_drills->shutDown(); // a running drill hands the engine its configuration back first
    m_settings->setHost(nullptr);
    m_providers->setConfigStore(nullptr);
    attach(nullptr);
}

void MainWindow::setTrayNotifier(sb::TrayNotifier *tray)
{
    m_tray = tray;
    m_settings->setTrayNotifier(tray);
}

void MainWindow::setHistoryDatabase(const QString &path)
{
    delete m_history;
    m_history = new sb::HistoryService(path, this);
    m_overview->setHistory(m_history);
    m_incidents->setHistory(m_history);
    m_requests->setHistory(m_history);
}

void MainWindow::addPage(const QString &name, QWidget *page)
{
    page->setObjectName(name.toLower());
    m_sidebar->addItem(name);
    m_pages->addWidget(page);
}

void MainWindow::buildStatusBar()
{
    auto *bar = statusBar();
    m_proxyAddress = new QLabel(bar);
    m_proxyAddress->setObjectName(QStringLiteral("proxyAddress"));
    m_requestRate = new QLabel(tr("— req/s"), bar);
    m_successRate = new QLabel(tr("— % (5m)"), bar);
    m_ttft = new QLabel(tr("TTFT p95 —"), bar);
    m_openIncidents = new QLabel(tr("no open incidents"), bar);
    m_openIncidents->setToolTip(tr("Channels whose circuit is open or half-open, or that were ejected"));
    for (QLabel *label : {m_proxyAddress, m_requestRate, m_successRate, m_ttft, m_openIncidents}) {
        label->setContentsMargins(10, 1, 10, 1);
        if (label != m_proxyAddress)
            label->setStyleSheet(QStringLiteral("QLabel { border-left: 1px solid palette(mid); }"));
        bar->addWidget(label);
    }
    connect(m_proxyAddress, &QLabel::linkActivated, this, [this](const QString &link) {
        QApplication::clipboard()->setText(link);
        QToolTip::showText(QCursor::pos(), tr("Copied %1").arg(link), m_proxyAddress);
    });
    setProxyAddress(QString());
}

void MainWindow::setProxyAddress(const QString &baseUrl)
{
    m_baseUrl = baseUrl;
    updateInstanceIndicator();
    if (baseUrl.isEmpty()) {
        m_proxyAddress->setText(tr("Proxy not running"));
        m_proxyAddress->setToolTip(QString());
        return;
    }
    m_proxyAddress->setText(QStringLiteral("Proxy <a href=\"%1\" style=\"text-decoration:none\">%2</a> (click to copy)")
                                .arg(baseUrl.toHtmlEscaped(), baseUrl.toHtmlEscaped()));
    m_proxyAddress->setToolTip(tr("Click to copy the base URL for your OpenAI SDK"));
}

void MainWindow::applySnapshot(const sb::MetricsSnapshot &snapshot)
{
    // A config saved in a dialog swaps the engine's pointer; reading it is a lock-free load.
    if (m_gateway && !m_remote) {
        m_channels->setConfig(m_gateway->config());
        const QString url = m_gateway->baseUrl(); // the port is known only once the proxy listens
        if (url != m_baseUrl)
            setProxyAddress(url);
    }
    m_overview->applySnapshot(snapshot);
    m_channels->applySnapshot(snapshot);
    if (!m_remote) // its key health and route spend describe this machine's configuration, by id and name
        m_providers->applySnapshot(snapshot);

    m_requestRate->setText(tr("%1 req/s").arg(sb::formatRate(snapshot.requestsPerSecond)));
    m_successRate->setText(snapshot.answered5m == 0 ? tr("— % (5m)")
                                                    : tr("%1 (5m)").arg(sb::formatPercent(snapshot.availability5m)));
    m_ttft->setText(tr("TTFT p95 %1").arg(sb::formatMs(snapshot.ttftP95Ms)));
    int incidents = 0;
    for (const sb::ChannelSnapshot &channel : snapshot.channels)
        incidents += sb::isIncident(sb::channelState(channel)) ? 1 : 0;
    m_openIncidents->setText(incidents == 0 ? tr("no open incidents") : incidents == 1 ? tr("1 open incident") : tr("%1 open incidents").arg(incidents));
}

void MainWindow::addEvent(const sb::HealthEvent &event)
{
    m_overview->addEvent(event);
    m_incidents->addEvent(event); // used only while attached; the embedded engine's come from its history
}

QString MainWindow::statusText() const
{
    QStringList parts;
    for (const QLabel *label : {m_proxyAddress, m_requestRate, m_successRate, m_ttft, m_openIncidents})
        parts << label->text();
    return parts.join(QStringLiteral(" | "));
}

QStringList MainWindow::pageNames() const
{
    QStringList names;
    for (int i = 0; i < m_sidebar->count(); ++i)
        names << m_sidebar->item(i)->text();
    return names;
}

void MainWindow::showPage(int index)
{
    m_sidebar->setCurrentRow(index);
}

bool MainWindow::saveScreenshots(const QString &directory)
{
    if (!QDir().mkpath(directory))
        return false;
    ensurePolished();
    const int current = m_pages->currentIndex();
    bool ok = true;
    for (int i = 0; i < m_sidebar->count(); ++i) {
        showPage(i);
        if (m_pages->widget(i) == m_overview)
            m_overview->redrawNow(); // not the next 250 ms tick: the shot must show the latest snapshot
        // Let pending layout requests (new rows, longer status texts) settle before grabbing.
        // Let layouts and the charts' scenes settle (each level posts the next one's request).
        for (int round = 0; round < 4; ++round)
            QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
        const QPixmap shot = grab();
        const QString path = QDir(directory).filePath(m_pages->widget(i)->objectName() + QStringLiteral(".png"));
        ok = shot.save(path) && ok;
    }
    showPage(current);
    return ok;
}
