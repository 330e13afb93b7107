#include "MainWindow.h"

#include "ConsoleStyle.h"
#include "drills/DrillOffer.h"
#include "drills/DrillsPage.h"
#include "engine/EngineHost.h"
#include "engine/Gateway.h"
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
#include <QStackedWidget>
#include <QStatusBar>
#include <QToolTip>
#include <QVBoxLayout>

namespace {
// The sidebar's order (UI.md).
constexpr int kIncidentsPage = 2;
constexpr int kRequestsPage = 3;
constexpr int kProvidersPage = 4;
constexpr int kDrillsPage = 5;
} // namespace

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("Switchboard"));
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
        "QListWidget#sidebar::item { padding: 9px 14px; }"
        "QListWidget#sidebar::item:selected { background: palette(highlight); color: palette(highlighted-text); }"));

    // Right of the sidebar: the warnings that concern every page (keys kept in the database file,
    // the first-start drill offer) above the page stack.
    auto *right = new QVBoxLayout;
    right->setContentsMargins(0, 0, 0, 0);
    right->setSpacing(0);
    m_secretBanner = new sb::SecretStorageBanner(central);
    m_drillOffer = new sb::DrillOffer(central);
    m_drillOffer->hide(); // offered only while the demo configuration runs
    m_pages = new QStackedWidget(central);
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
    m_settings = new sb::SettingsPage(this);
    addPage(tr("Incidents"), m_incidents);
    addPage(tr("Requests"), m_requests);
    addPage(tr("Providers"), m_providers);
    addPage(tr("Drills"), m_drills);
    addPage(tr("Settings"), m_settings);

    connect(m_sidebar, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);
    m_sidebar->setCurrentRow(0);
    buildStatusBar();

    connect(m_channels, &sb::ChannelsPage::openProviderRequested, this, [this](int providerId) {
        showPage(kProvidersPage);
        m_providers->showProvider(providerId);
    });
    // Probing runs on the engine's control thread; the call only queues it.
    connect(m_channels, &sb::ChannelsPage::probeRequested, this, [this](int channelId) {
        if (m_gateway && !m_gateway->probeNow(channelId))
            statusBar()->showMessage(tr("A probe of that channel is already running."), 5000);
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
    // The Router's drain/readmit are thread-safe and only take a per-channel lock: no waiting on the engine.
    connect(m_channels, &sb::ChannelsPage::drainRequested, this, [this](int channelId) {
        if (m_gateway)
            m_gateway->router().drain(channelId, tr("drained in the console"));
    });
    connect(m_channels, &sb::ChannelsPage::readmitRequested, this, [this](int channelId) {
        if (m_gateway)
            m_gateway->router().readmit(channelId, tr("re-admitted in the console"));
    });
}

void MainWindow::attach(sb::Gateway *gateway)
{
    if (m_gateway)
        disconnect(m_gateway, nullptr, this, nullptr);
    m_gateway = gateway;
    if (!gateway) {
        setProxyAddress(QString());
        return;
    }
    qRegisterMetaType<sb::MetricsSnapshot>();
    qRegisterMetaType<sb::HealthEvent>();
    connect(gateway, &sb::Gateway::snapshotReady, this, &MainWindow::applySnapshot, Qt::QueuedConnection);
    connect(gateway, &sb::Gateway::healthEvent, this, &MainWindow::addEvent, Qt::QueuedConnection);
    connect(gateway, &sb::Gateway::listenFailed, this, [this](const QString &message) {
        statusBar()->showMessage(message, 15000);
    }, Qt::QueuedConnection);
    connect(m_drills, &sb::DrillsPage::drillFinished, this, [this] {
        if (m_gateway)
            m_channels->setConfig(m_gateway->config());
    }, Qt::UniqueConnection);
    m_drills->attach(gateway);
    m_channels->setConfig(gateway->config());
    m_providers->setConfig(gateway->config());
    m_drillOffer->setVisible(gateway->config()->demo);
    setProxyAddress(gateway->baseUrl());
}

void MainWindow::attachHost(sb::EngineHost *host)
{
    attach(host ? host->gateway() : nullptr);
    if (!host)
        return;
    setHistoryDatabase(host->databasePath());
    m_providers->setConfigStore(host->configStore());
    m_settings->setHost(host);
    m_secretBanner->setWarning(host->secretStorageWarning(), host->databasePath());
}

void MainWindow::detachHost()
{
    m_drills->shutDown(); // a running drill hands the engine its configuration back first
    m_settings->setHost(nullptr);
    m_providers->setConfigStore(nullptr);
    attach(nullptr);
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
    if (m_gateway) {
        m_channels->setConfig(m_gateway->config());
        const QString url = m_gateway->baseUrl(); // the port is known only once the proxy listens
        if (url != m_baseUrl)
            setProxyAddress(url);
    }
    m_overview->applySnapshot(snapshot);
    m_channels->applySnapshot(snapshot);
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
