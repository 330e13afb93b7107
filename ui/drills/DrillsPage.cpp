#include "DrillsPage.h"

#include "ConsoleStyle.h"
#include "DrillCatalog.h"
#include "control/Gateway.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace sb {

namespace {

QString duration(double seconds)
{
    if (seconds >= 60 && std::fmod(seconds, 60.0) == 0)
        return QCoreApplication::translate("DrillsPage", "%1 min").arg(seconds / 60.0, 0, 'f', 0);
    if (seconds >= 60)
        return QCoreApplication::translate("DrillsPage", "%1 min %2 s").arg(int(seconds) / 60).arg(int(seconds) % 60);
    return QCoreApplication::translate("DrillsPage", "%1 s").arg(seconds, 0, 'f', 0);
}

QTableWidgetItem *item(const QString &text, Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter)
{
    auto *i = new QTableWidgetItem(text);
    i->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    i->setTextAlignment(align);
    return i;
}

QTableWidget *makeTable(const QStringList &headers, QWidget *parent)
{
    auto *t = new QTableWidget(0, int(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::NoSelection);
    t->setFocusPolicy(Qt::NoFocus);
    t->setShowGrid(false);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setStretchLastSection(true);
    t->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    return t;
}

} // namespace

DrillsPage::DrillsPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 14);
    auto *heading = new QLabel(tr("<span style='font-size:16pt; font-weight:600'>Drills</span><br>"
                                  "Rehearse an incident: run a shipped scenario against the embedded engine, watch the Overview "
                                  "react, read the report. Your saved configuration is not touched; the running one comes back "
                                  "when the drill ends."),
                               this);
    heading->setWordWrap(true);
    layout->addWidget(heading);

    auto *body = new QHBoxLayout;
    layout->addLayout(body, 1);
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("drillList"));
    m_list->setMinimumWidth(300);
    m_list->setMaximumWidth(380);
    m_list->setWordWrap(true);
    m_list->setSpacing(2);
    body->addWidget(m_list);

    auto *details = new QVBoxLayout;
    body->addLayout(details, 1);
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    m_description = new QLabel(this);
    m_description->setWordWrap(true);
    details->addWidget(m_title);
    details->addWidget(m_description);

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Speed"), this));
    m_timeScale = new QComboBox(this);
    m_timeScale->addItem(tr("×1 (real time)"), 1.0);
    m_timeScale->addItem(tr("×10"), 10.0);
    m_timeScale->setCurrentIndex(1);
    m_timeScale->setToolTip(tr("At ×10 the scenario, the providers and the engine's windows and timeouts all run ten times "
                               "faster; the report is in scenario time."));
    controls->addWidget(m_timeScale);
    m_run = new QPushButton(tr("Run"), this);
    m_cancel = new QPushButton(tr("Cancel"), this);
    controls->addWidget(m_run);
    controls->addWidget(m_cancel);
    controls->addStretch(1);
    details->addLayout(controls);

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    details->addWidget(m_progress);
    m_progressText = new QLabel(this);
    details->addWidget(m_progressText);
    m_status = new QLabel(this);
    m_status->setWordWrap(true);
    details->addWidget(m_status);

    m_verdict = new QLabel(this);
    m_verdict->setTextFormat(Qt::RichText);
    details->addWidget(m_verdict);
    m_figures = makeTable({tr("Figure"), tr("Value"), tr("Target"), tr("Result")}, this);
    m_figures->setObjectName(QStringLiteral("drillFigures"));
    details->addWidget(m_figures, 3);
    m_channelTable = makeTable({tr("Channel"), tr("Requests answered"), tr("Share")}, this);
    m_channelTable->setObjectName(QStringLiteral("drillChannels"));
    // The counts sit under right-aligned headers; the channel's name takes the spare width (a
    // stretched Share column put its figure a page-width away from its header).
    m_channelTable->horizontalHeader()->setStretchLastSection(false);
    m_channelTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int column : {1, 2})
        m_channelTable->horizontalHeaderItem(column)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    details->addWidget(m_channelTable, 2);

    QStringList problems;
    m_drills = shippedDrills(&problems);
    for (const sim::Scenario &s : m_drills) {
        auto *row = new QListWidgetItem(QStringLiteral("%1 · %2\n%3").arg(s.name, duration(s.load.duration), s.summary), m_list);
        row->setToolTip(s.rehearses.isEmpty() ? s.description : tr("Rehearses: %1").arg(s.rehearses));
    }
    if (!problems.isEmpty())
        m_status->setText(tr("Some shipped drills did not load: %1").arg(problems.join(QStringLiteral("; "))));

    connect(m_list, &QListWidget::currentRowChanged, this, &DrillsPage::showDetails);
    connect(m_run, &QPushButton::clicked, this, [this] {
        const int row = m_list->currentRow();
        QString error;
        if (row >= 0 && !runDrill(m_drills[std::size_t(row)].name, m_timeScale->currentData().toDouble(), &error))
            m_status->setText(error);
    });
    connect(m_cancel, &QPushButton::clicked, this, &DrillsPage::cancel);
    // The Gateway goes when the application ends; the drill must hand its configuration back first.
    if (QCoreApplication::instance())
        connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, this, &DrillsPage::shutDown);

    m_list->setCurrentRow(m_drills.empty() ? -1 : 0);
    clearReport();
    updateButtons();
}

DrillsPage::~DrillsPage()
{
    shutDown();
}

void DrillsPage::attach(Gateway *gateway)
{
    m_gateway = gateway;
    updateButtons();
}

QStringList DrillsPage::drillNames() const
{
    QStringList names;
    for (const auto &s : m_drills)
        names << s.name;
    return names;
}

void DrillsPage::showDetails(int row)
{
    if (row < 0 || row >= int(m_drills.size())) {
        m_title->clear();
        m_description->clear();
        return;
    }
    const sim::Scenario &s = m_drills[std::size_t(row)];
    m_title->setText(tr("<span style='font-size:13pt; font-weight:600'>%1</span> &nbsp;·&nbsp; %2 of scenario time, "
                        "%3 requests/s &nbsp;·&nbsp; %4")
                         .arg(s.name.toHtmlEscaped(), duration(s.load.duration))
                         .arg(s.load.rate)
                         .arg(s.rehearses.toHtmlEscaped()));
    m_description->setText(s.description);
    updateButtons();
}

void DrillsPage::updateButtons()
{
    const bool running = isRunning();
    m_run->setEnabled(!running && m_gateway && m_list->currentRow() >= 0);
    m_cancel->setEnabled(running);
    m_list->setEnabled(!running);
    m_timeScale->setEnabled(!running);
    if (!m_gateway && !running)
        m_run->setToolTip(tr("The engine is not running; see the status bar."));
    else
        m_run->setToolTip(QString());
}

bool DrillsPage::runDrill(const QString &name, double timeScale, QString *error)
{
    auto fail = [error](const QString &sentence) {
        if (error)
            *error = sentence;
        return false;
    };
    if (!m_gateway)
        return fail(tr("The engine is not running, so there is nothing to drill; start it first."));
    if (isRunning())
        return fail(tr("The drill \"%1\" is still running; cancel it or wait for its report.").arg(m_running));
    const auto it = std::find_if(m_drills.begin(), m_drills.end(), [&](const sim::Scenario &s) { return s.name == name; });
    if (it == m_drills.end())
        return fail(tr("There is no shipped drill named \"%1\".").arg(name));
    m_list->setCurrentRow(int(it - m_drills.begin()));
    // The control shows the speed the drill runs at, also one it does not offer (a run asked for
    // by code, such as a test at ×20).
    int scaleIndex = m_timeScale->findData(timeScale);
    if (scaleIndex < 0) {
        m_timeScale->addItem(tr("×%1").arg(timeScale), timeScale);
        scaleIndex = m_timeScale->count() - 1;
    }
    m_timeScale->setCurrentIndex(scaleIndex);

    clearReport();
    m_running = name;
    m_runningScale = timeScale;
    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("drill"));
    m_drill = new sim::EmbeddedDrill(*m_gateway, *it, timeScale);
    m_drill->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_drill, &QObject::deleteLater);
    connect(m_drill, &sim::EmbeddedDrill::started, this, &DrillsPage::onStarted);
    connect(m_drill, &sim::EmbeddedDrill::failed, this, &DrillsPage::onFailed);
    connect(m_drill, &sim::EmbeddedDrill::progressed, this, &DrillsPage::onProgress);
    connect(m_drill, &sim::EmbeddedDrill::finished, this, &DrillsPage::onFinished);
    m_thread->start();
    QMetaObject::invokeMethod(m_drill, &sim::EmbeddedDrill::start, Qt::QueuedConnection);
    m_status->setText(tr("Starting %1 at ×%2 …").arg(name).arg(timeScale));
    m_progressText->setText(tr("0 s of %1 · 0 requests sent").arg(duration(it->load.duration)));
    updateButtons();
    return true;
}

void DrillsPage::cancel()
{
    if (m_drill) {
        m_status->setText(tr("Cancelling %1 …").arg(m_running));
        QMetaObject::invokeMethod(m_drill, &sim::EmbeddedDrill::cancel, Qt::QueuedConnection);
    }
}

void DrillsPage::shutDown()
{
    if (!m_thread)
        return;
    // Blocking is right here and only here: the engine is going away and the drill must put the
    // previous configuration back and close its providers before it does.
    disconnect(m_drill, nullptr, this, nullptr);
    QMetaObject::invokeMethod(m_drill, &sim::EmbeddedDrill::cancel, Qt::BlockingQueuedConnection);
    endThread();
}

void DrillsPage::endThread()
{
    if (!m_thread)
        return;
    m_thread->quit();
    m_thread->wait();
    delete m_thread; // m_drill went with the thread's finished() (deleteLater)
    m_thread = nullptr;
    m_drill = nullptr;
    m_running.clear();
}

void DrillsPage::onStarted()
{
    emit drillStarted(m_running);
    m_status->setText(tr("%1 is running at ×%2: watch the Overview and Channels pages. The drill's channels replace yours "
                         "until it ends.")
                          .arg(m_running)
                          .arg(m_runningScale));
}

void DrillsPage::onFailed(const QString &error)
{
    const QString name = m_running;
    endThread();
    m_status->setText(tr("The drill could not start: %1").arg(error));
    updateButtons();
    emit drillFinished(name, true);
}

void DrillsPage::onProgress(const sim::DrillProgress &p)
{
    m_progress->setValue(p.total > 0 ? int(1000.0 * p.elapsed / p.total) : 0);
    QString text = tr("%1 of %2 · %3 requests sent · %4 succeeded")
                       .arg(duration(p.elapsed), duration(p.total), formatCount(std::uint64_t(p.sent)),
                            formatCount(std::uint64_t(p.succeeded)));
    if (p.sent > 0)
        text += QStringLiteral(" (%1)").arg(formatPercent(double(p.succeeded) / p.sent));
    if (p.dropped > 0)
        text += tr(" · %1 dropped at the concurrency cap").arg(formatCount(std::uint64_t(p.dropped)));
    m_progressText->setText(text);
}

void DrillsPage::onFinished(const sim::DrillReport &report, bool cancelled)
{
    const QString name = m_running;
    endThread();
    if (cancelled) {
        m_status->setText(tr("%1 was cancelled; your configuration is running again. No report for a partial drill.").arg(name));
    } else {
        m_progress->setValue(1000);
        m_status->setText(tr("%1 finished at ×%2; your configuration is running again.").arg(name).arg(report.timeScale));
        showReport(report);
    }
    updateButtons();
    emit drillFinished(name, cancelled);
}

void DrillsPage::clearReport()
{
    m_verdict->clear();
    m_figures->setRowCount(0);
    m_channelTable->setRowCount(0);
    m_figures->setVisible(false);
    m_channelTable->setVisible(false);
}

void DrillsPage::showReport(const sim::DrillReport &report)
{
    // The targets speak the drill's own (unscaled) engine settings: its breaker preset, default probes.
    EngineConfig targets;
    const auto it = std::find_if(m_drills.begin(), m_drills.end(), [&](const sim::Scenario &s) { return s.name == report.scenario; });
    if (it != m_drills.end())
        BreakerConfig::fromPreset(it->proxy.breakerPreset, &targets.breaker);
    const std::vector<DrillFigure> figures = drillFigures(report, &targets);
    const bool passed = drillPassed(figures);
    const QColor good = stateColor(ChannelState::Closed);
    const QColor bad = stateColor(ChannelState::Open);
    m_verdict->setText(tr("<b>Report: %1</b> — %2 (%3 s of scenario time at ×%4)")
                           .arg(report.scenario.toHtmlEscaped(),
                                passed ? tr("<span style='color:%1'>every target met</span>").arg(good.name())
                                       : tr("<span style='color:%1'>targets missed</span>").arg(bad.name()))
                           .arg(report.duration)
                           .arg(report.timeScale));

    m_figures->setRowCount(int(figures.size()));
    for (int row = 0; row < int(figures.size()); ++row) {
        const DrillFigure &f = figures[std::size_t(row)];
        m_figures->setItem(row, 0, item(f.name));
        m_figures->setItem(row, 1, item(f.value));
        m_figures->setItem(row, 2, item(f.target.isEmpty() ? QStringLiteral("—") : f.target));
        auto *result = item(!f.pass ? QString() : *f.pass ? tr("✓ pass") : tr("✗ fail"));
        if (f.pass)
            result->setForeground(*f.pass ? good : bad);
        m_figures->setItem(row, 3, result);
    }
    m_figures->resizeColumnsToContents();

    QStringList columns = report.channels;
    std::vector<int> totals(std::size_t(columns.size()), 0);
    for (const auto &second : report.perSecond)
        for (std::size_t c = 0; c < second.size() && c < totals.size(); ++c)
            totals[c] += second[c];
    const int all = report.requests;
    m_channelTable->setRowCount(int(columns.size()));
    for (int row = 0; row < int(columns.size()); ++row) {
        const bool primary = report.primaryChannels.contains(columns[row]);
        m_channelTable->setItem(row, 0, item(primary ? tr("%1 (primary)").arg(columns[row]) : columns[row]));
        m_channelTable->setItem(row, 1, item(formatCount(std::uint64_t(totals[std::size_t(row)])), Qt::AlignRight | Qt::AlignVCenter));
        m_channelTable->setItem(row, 2, item(all > 0 ? formatPercent(double(totals[std::size_t(row)]) / all, 1) : QStringLiteral("—"),
                                             Qt::AlignRight | Qt::AlignVCenter));
    }
    m_channelTable->resizeColumnsToContents();
    m_figures->setVisible(true);
    m_channelTable->setVisible(true);
}

QString DrillsPage::statusText() const
{
    return m_status->text();
}

QString DrillsPage::progressText() const
{
    return m_progressText->text();
}

QString DrillsPage::verdictText() const
{
    return m_verdict->text();
}

} // namespace sb
