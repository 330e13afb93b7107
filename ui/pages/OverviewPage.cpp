#include "pages/OverviewPage.h"

#include "widgets/KpiTile.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QValueAxis>
#include <QVBoxLayout>

OverviewPage::OverviewPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(10);

    auto *tiles = new QHBoxLayout;
    m_availability = new KpiTile(tr("Availability 5m"), this);
    m_requestRate = new KpiTile(tr("Requests/s"), this);
    m_ttft = new KpiTile(tr("TTFT p95"), this);
    m_failovers = new KpiTile(tr("Failovers 1h"), this);
    m_cost = new KpiTile(tr("Cost today"), this);
    for (KpiTile *tile : {m_availability, m_requestRate, m_ttft, m_failovers, m_cost}) {
        tile->setValue(QStringLiteral("—"), tr("no traffic yet"));
        tiles->addWidget(tile);
    }
    layout->addLayout(tiles);

    layout->addWidget(makeChart(tr("Health score (0–100)"), 100, tr("score")), 3);
    layout->addWidget(makeChart(tr("Circuit state"), 1, QString()), 2);
    layout->addWidget(makeChart(tr("TTFT p50 / p95 and failovers"), 1000, tr("ms")), 3);
}

QChartView *OverviewPage::makeChart(const QString &title, double yMax, const QString &yLabel)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setVisible(false);
    chart->setMargins(QMargins(4, 2, 4, 2));
    chart->setBackgroundRoundness(4);

    const QDateTime end = QDateTime::currentDateTime();
    auto *time = new QDateTimeAxis;
    time->setFormat(QStringLiteral("HH:mm:ss"));
    time->setRange(end.addSecs(-300), end);
    auto *values = new QValueAxis;
    values->setRange(0, yMax);
    values->setTitleText(yLabel);
    values->setLabelFormat(QStringLiteral("%d"));
    values->setLabelsVisible(yMax > 1); // the circuit chart draws bands, not a scale
    chart->addAxis(time, Qt::AlignBottom);
    chart->addAxis(values, Qt::AlignLeft);

    auto *view = new QChartView(chart, this);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(120);
    return view;
}
