#include "MainWindow.h"

#include "ConsoleStyle.h"
#include "engine/Gateway.h"
#include "pages/ChannelsPage.h"
#include "pages/OverviewPage.h"
#include "pages/PlaceholderPage.h"

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

namespace {
constexpr int kProvidersPage = 4;
}

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

    m_pages = new QStackedWidget(central);
    layout->addWidget(m_sidebar);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    m_overview = new sb::OverviewPage(this);
    m_channels = new sb::ChannelsPage(this);
    addPage(tr("Overview"), m_overview);
    addPage(tr("Channels"), m_channels);
    addPage(tr("Incidents"), new PlaceholderPage(tr("Incidents"),
        tr("Circuit trips, ejections and failovers, grouped by incident. None recorded yet."), this));
    addPage(tr("Requests"), new PlaceholderPage(tr("Requests"),
        tr("A live tail of requests with every attempt, outcome and failover. None recorded yet."), this));
    addPage(tr("Providers"), new PlaceholderPage(tr("Providers"),
        tr("Providers, API keys, channels and routes, edited through dialogs."), this));
    addPage(tr("Drills"), new PlaceholderPage(tr("Drills"),
        tr("Rehearse an incident: run a shipped scenario against the embedded engine and watch it fail over."), this));
    addPage(tr("Settings"), new PlaceholderPage(tr("Settings"),
        tr("Listen address, local token, engine thresholds, retention and theme."), this));

    connect(m_sidebar, &QListWidget::currentRowChanged, m_pages, &QStackedWidget::setCurrentIndex);
    m_sidebar->setCurrentRow(0);
    buildStatusBar();

    connect(m_channels, &sb::ChannelsPage::openProviderRequested, this, [this](int) { showPage(kProvidersPage); });
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
    m_channels->setConfig(gateway->config());
    setProxyAddress(gateway->baseUrl());
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
    m_incidents = new QLabel(tr("no open incidents"), bar);
    m_incidents->setToolTip(tr("Channels whose circuit is open or half-open, or that were ejected"));
    for (QLabel *label : {m_proxyAddress, m_requestRate, m_successRate, m_ttft, m_incidents}) {
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

    m_requestRate->setText(tr("%1 req/s").arg(sb::formatRate(snapshot.requestsPerSecond)));
    m_successRate->setText(snapshot.answered5m == 0 ? tr("— % (5m)")
                                                    : tr("%1 (5m)").arg(sb::formatPercent(snapshot.availability5m)));
    m_ttft->setText(tr("TTFT p95 %1").arg(sb::formatMs(snapshot.ttftP95Ms)));
    int incidents = 0;
    for (const sb::ChannelSnapshot &channel : snapshot.channels)
        incidents += sb::isIncident(sb::channelState(channel)) ? 1 : 0;
    m_incidents->setText(incidents == 0 ? tr("no open incidents") : incidents == 1 ? tr("1 open incident") : tr("%1 open incidents").arg(incidents));
}

void MainWindow::addEvent(const sb::HealthEvent &event)
{
    m_overview->addEvent(event);
}

QString MainWindow::statusText() const
{
    QStringList parts;
    for (const QLabel *label : {m_proxyAddress, m_requestRate, m_successRate, m_ttft, m_incidents})
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
