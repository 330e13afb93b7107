#include "MainWindow.h"

#include "pages/OverviewPage.h"
#include "pages/PlaceholderPage.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QStackedWidget>
#include <QStatusBar>

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
    m_sidebar->setStyleSheet(QStringLiteral(
        "QListWidget#sidebar { background: palette(alternate-base); padding-top: 8px; font-size: 14px; }"
        "QListWidget#sidebar::item { padding: 9px 14px; }"
        "QListWidget#sidebar::item:selected { background: palette(highlight); color: palette(highlighted-text); }"));

    m_pages = new QStackedWidget(central);
    layout->addWidget(m_sidebar);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    addPage(tr("Overview"), new OverviewPage(this));
    addPage(tr("Channels"), new PlaceholderPage(tr("Channels"),
        tr("Every channel's state, health score, error rates, P95 and TTFT appear here once the proxy is running."), this));
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
    m_proxyAddress->setToolTip(tr("Click to copy the base URL for your OpenAI SDK"));
    m_requestRate = new QLabel(tr("— req/s"), bar);
    m_successRate = new QLabel(tr("— % (5m)"), bar);
    m_ttft = new QLabel(tr("TTFT p95 —"), bar);
    m_incidents = new QLabel(tr("0 incidents"), bar);
    for (QLabel *label : {m_proxyAddress, m_requestRate, m_successRate, m_ttft, m_incidents}) {
        label->setContentsMargins(8, 0, 8, 0);
        bar->addWidget(label);
    }
    connect(m_proxyAddress, &QLabel::linkActivated, this, [](const QString &link) {
        QApplication::clipboard()->setText(link);
    });
    m_proxyAddress->setText(QStringLiteral("<a href=\"http://127.0.0.1:8400/v1\" style=\"text-decoration:none\">"
                                           "Proxy http://127.0.0.1:8400/v1</a>"));
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
    bool ok = true;
    for (int i = 0; i < m_sidebar->count(); ++i) {
        showPage(i);
        const QPixmap shot = grab();
        const QString path = QDir(directory).filePath(m_pages->widget(i)->objectName() + QStringLiteral(".png"));
        ok = shot.save(path) && ok;
    }
    return ok;
}
