#include "providers/UsdAmount.h"

#include <QLocale>

#include <cmath>

namespace sb {

UsdAmount::Parse UsdAmount::parse(const QString &text, double *value)
{
    *value = 0.0;
    QString t = text.trimmed();
    if (t.startsWith(QLatin1String("US$"), Qt::CaseInsensitive))
        t = t.mid(3).trimmed();
    else if (t.startsWith(QLatin1Char('$')))
        t = t.mid(1).trimmed();
    if (t.isEmpty())
        return Parse::Empty;
    bool ok = false;
    double v = QLocale::c().toDouble(t, &ok);
    if (!ok)
        v = QLocale().toDouble(t, &ok);
    if (!ok || !std::isfinite(v))
        return Parse::NotANumber;
    if (v < 0)
        return Parse::Negative;
    *value = v;
    return Parse::Ok;
}

QString UsdAmount::format(double usd)
{
    if (usd > 0 && usd < 1.0) {
        QString digits = QLocale().toString(usd, 'f', 4);
        // "$0.5000" reads as false precision; trim to at least two decimals.
        const QChar point = QLocale().decimalPoint().at(0);
        while (digits.endsWith(QLatin1Char('0')) && digits.indexOf(point) < digits.size() - 3)
            digits.chop(1);
        return QStringLiteral("$") + digits;
    }
    return QStringLiteral("$") + QLocale().toString(usd, 'f', 2);
}

QString UsdAmount::editText(double usd)
{
    return usd > 0 ? QString::number(usd, 'g', 12) : QString();
}

} // namespace sb
