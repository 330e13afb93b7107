#pragma once

#include "health/ChannelSnapshot.h"

#include <QColor>
#include <QString>

#include <cstdint>

class QChart;
class QPalette;

namespace sb {

// What the console shows for a channel: one state out of breaker and pool, worst first, so a badge
// or a band never has to show two things at once.
// Misconfigured comes last: nothing else about a channel matters while its configuration cannot work.
enum class ChannelState : std::uint8_t { Closed, Degraded, HalfOpen, Open, Ejected, Drained, Misconfigured };

ChannelState channelState(const ChannelSnapshot &channel);
QString stateText(ChannelState state);     // "closed", "half-open", … (the badge and band text)
QColor stateColor(ChannelState state);     // ARCHITECTURE.md, "Console conventions"
int stateSeverity(ChannelState state);     // sort order: healthy first
// True for states a person should look at now (the status bar's "open incidents").
bool isIncident(ChannelState state);

// One stable colour per channel (Okabe–Ito, colour-blind safe), derived from the channel id.
QColor channelColor(int channelId);

// Number conventions (ARCHITECTURE.md, "Console conventions"): "99.98 %", "312 ms" below 10 s, thousands separated.
QString formatPercent(double ratio, int decimals = 2);
QString formatMs(double ms);
QString formatRate(double perSecond);
QString formatCount(std::uint64_t count);
QString formatClock(std::int64_t wallMillis);

// Chart colours from the widget palette, so light and dark themes both stay readable.
void styleChart(QChart *chart, const QPalette &palette);

} // namespace sb
