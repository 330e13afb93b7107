#include "fleet/FleetBanner.h"

#include "ConsoleStyle.h"

namespace sb {

FleetBanner::FleetBanner(QWidget *parent)
    // The open-circuit red as a light wash with a solid edge: shared state is gone, which is an
    // incident of its own, not a configuration hint.
    : WarningStrip(QStringLiteral("fleetBanner"), QStringLiteral("fleetBannerText"),
                   {QColor(0xfd, 0xec, 0xea), QColor(0xc6, 0x28, 0x28), QColor(0x4a, 0x0f, 0x0f)}, parent)
{
}

QString FleetBanner::warningFor(const FleetReport &report)
{
    if (!report.configured || report.connected)
        return {};
    QString since;
    if (report.disconnectedSinceWallMs > 0)
        since = tr(" since %1").arg(formatClock(report.disconnectedSinceWallMs));
    QString why;
    if (!report.lastError.isEmpty())
        why = QStringLiteral(" (%1)").arg(report.lastError);
    return tr("Fleet \"%1\": its Redis at %2 is unreachable%3%4.").arg(report.fleet, report.redis, since, why);
}

void FleetBanner::showReport(const FleetReport &report)
{
    const QString warning = warningFor(report);
    if (warning.isEmpty()) {
        clear();
        return;
    }
    const QString meaning = tr("This instance (%1) serves on its own state: breakers, dead keys, rate limits and budgets "
                               "are not shared with the other instances until Redis answers again. It keeps reconnecting.")
                                .arg(report.instance);
    showHtml(QStringLiteral("<b>%1</b><br>%2").arg(warning.toHtmlEscaped(), meaning.toHtmlEscaped()));
}

} // namespace sb
