#include "ConsoleStyle.h"

#include <QAbstractAxis>
#include <QChart>
#include <QDateTime>
#include <QLocale>
#include <QPalette>

#include <array>
#include <cmath>

namespace sb {

ChannelState channelState(const ChannelSnapshot &channel)
{
    if (channel.pool == PoolState::Misconfigured)
        return ChannelState::Misconfigured;
    if (channel.pool == PoolState::Drained)
        return ChannelState::Drained;
    if (channel.pool == PoolState::Ejected)
        return ChannelState::Ejected;
    if (channel.breaker == BreakerState::Open)
        return ChannelState::Open;
    if (channel.breaker == BreakerState::HalfOpen)
        return ChannelState::HalfOpen;
    if (channel.pool == PoolState::Degraded)
        return ChannelState::Degraded;
    return ChannelState::Closed;
}

QString stateText(ChannelState state)
{
    switch (state) {
    case ChannelState::Closed: return QStringLiteral("closed");
    case ChannelState::Degraded: return QStringLiteral("degraded");
    case ChannelState::HalfOpen: return QStringLiteral("half-open");
    case ChannelState::Open: return QStringLiteral("open");
    case ChannelState::Ejected: return QStringLiteral("ejected");
    case ChannelState::Drained: return QStringLiteral("drained");
    case ChannelState::Misconfigured: return QStringLiteral("misconfigured");
    }
    return {};
}

QColor stateColor(ChannelState state)
{
    switch (state) {
    case ChannelState::Closed: return QColor(0x2e, 0x7d, 0x32);
    case ChannelState::Degraded: return QColor(0xef, 0x6c, 0x00);
    case ChannelState::HalfOpen: return QColor(0xf9, 0xa8, 0x25);
    case ChannelState::Open: return QColor(0xc6, 0x28, 0x28);
    case ChannelState::Ejected:
    case ChannelState::Drained: return QColor(0x75, 0x75, 0x75);
    case ChannelState::Misconfigured: return QColor(0x6a, 0x1b, 0x9a); // purple: a person must change a setting
    }
    return {};
}

int stateSeverity(ChannelState state)
{
    return static_cast<int>(state);
}

bool isIncident(ChannelState state)
{
    // Drained is a person's decision, not an incident; degraded still serves at reduced weight.
    return state == ChannelState::HalfOpen || state == ChannelState::Open || state == ChannelState::Ejected
        || state == ChannelState::Misconfigured;
}

QColor channelColor(int channelId)
{
    // Okabe–Ito without black and yellow, which vanish on dark and light backgrounds respectively.
    static const std::array<QColor, 6> palette{QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00),
                                               QColor(0x00, 0x9e, 0x73), QColor(0xcc, 0x79, 0xa7),
                                               QColor(0x56, 0xb4, 0xe9), QColor(0xd5, 0x5e, 0x00)};
    const int n = static_cast<int>(palette.size());
    return palette[static_cast<std::size_t>(((channelId - 1) % n + n) % n)];
}

static QLocale numberLocale()
{
    QLocale locale;
    locale.setNumberOptions(QLocale::DefaultNumberOptions); // keep thousands separators
    return locale;
}

QString formatPercent(double ratio, int decimals)
{
    return numberLocale().toString(ratio * 100.0, 'f', decimals) + QStringLiteral(" %");
}

QString formatMs(double ms)
{
    if (ms <= 0 || !std::isfinite(ms))
        return QStringLiteral("—");
    if (ms < 10'000)
        return numberLocale().toString(std::llround(ms)) + QStringLiteral(" ms");
    return numberLocale().toString(ms / 1000.0, 'f', 1) + QStringLiteral(" s");
}

QString formatRate(double perSecond)
{
    if (perSecond < 100)
        return numberLocale().toString(perSecond, 'f', 1);
    return numberLocale().toString(std::llround(perSecond));
}

QString formatCount(std::uint64_t count)
{
    return numberLocale().toString(static_cast<qulonglong>(count));
}

QString formatClock(std::int64_t wallMillis)
{
    return QDateTime::fromMSecsSinceEpoch(wallMillis).toString(QStringLiteral("HH:mm:ss"));
}

void styleChart(QChart *chart, const QPalette &palette)
{
    // The view paints the base colour behind the chart (AlignedChartView), so the chart and the
    // circuit timeline between the charts read as one surface.
    chart->setBackgroundVisible(false);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(palette.text());
    QColor grid = palette.text().color();
    grid.setAlpha(40);
    const auto axes = chart->axes();
    for (QAbstractAxis *axis : axes) {
        axis->setLabelsBrush(palette.text());
        axis->setTitleBrush(palette.text());
        axis->setGridLineColor(grid);
        axis->setLinePenColor(palette.mid().color());
        axis->setMinorGridLineColor(grid);
    }
}

} // namespace sb
