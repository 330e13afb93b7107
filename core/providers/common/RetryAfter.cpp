#include "providers/common/RetryAfter.h"

#include <QDateTime>
#include <QLocale>
#include <QTimeZone>
#include <QString>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace sb {

namespace {

constexpr std::chrono::milliseconds MaxWait = std::chrono::hours(1);

std::chrono::milliseconds clampWait(double millis)
{
    if (!(millis > 0)) // also catches NaN
        return std::chrono::milliseconds(0);
    return std::min(MaxWait, std::chrono::milliseconds(static_cast<std::int64_t>(std::min(millis, 3.6e6))));
}

std::optional<double> parseNumber(QByteArrayView text)
{
    bool ok = false;
    const double value = QString::fromLatin1(text.trimmed()).toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return std::nullopt;
    return value;
}

std::optional<QDateTime> parseHttpDate(const QByteArray &text)
{
    // IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") is the form RFC 9110 senders must produce;
    // Qt's RFC 2822 reader covers numeric zones as a fallback.
    const QString value = QString::fromLatin1(text.trimmed());
    QDateTime when = QLocale::c().toDateTime(value, QStringLiteral("ddd, dd MMM yyyy HH:mm:ss 'GMT'"));
    if (when.isValid())
        when.setTimeZone(QTimeZone::utc());
    else
        when = QDateTime::fromString(value, Qt::RFC2822Date);
    if (!when.isValid())
        return std::nullopt;
    return when;
}

} // namespace

std::optional<std::chrono::milliseconds> retryAfterFromHeaders(const HttpHeaders &headers, const char **from)
{
    std::optional<std::chrono::milliseconds> wait;
    const char *source = nullptr;
    if (headers.contains("retry-after-ms")) {
        if (auto ms = parseNumber(headers.value("retry-after-ms"))) {
            wait = clampWait(*ms);
            source = "retry-after-ms";
        }
    }
    if (!wait && headers.contains("retry-after")) {
        const QByteArray value = headers.value("retry-after").trimmed();
        if (auto seconds = parseNumber(value)) {
            wait = clampWait(*seconds * 1000.0);
        } else {
            const auto when = parseHttpDate(value);
            const auto now = parseHttpDate(headers.value("date"));
            if (when && now)
                wait = clampWait(double(now->msecsTo(*when)));
        }
        source = wait ? "Retry-After" : nullptr;
    }
    if (from && wait)
        *from = source;
    return wait;
}

std::optional<std::chrono::milliseconds> waitUntilInstant(QByteArrayView rfc3339, const HttpHeaders &headers)
{
    const QDateTime when = QDateTime::fromString(QString::fromLatin1(rfc3339.trimmed()), Qt::ISODateWithMs);
    const auto now = parseHttpDate(headers.value("date"));
    if (!when.isValid() || !now)
        return std::nullopt;
    return clampWait(double(now->msecsTo(when)));
}

std::optional<std::chrono::milliseconds> parseGoDuration(QByteArrayView text)
{
    text = text.trimmed();
    if (text.isEmpty())
        return std::nullopt;
    double total = 0;
    qsizetype i = 0;
    while (i < text.size()) {
        const qsizetype start = i;
        while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.'))
            ++i;
        if (i == start)
            return std::nullopt;
        const auto number = parseNumber(text.sliced(start, i - start));
        if (!number)
            return std::nullopt;
        const qsizetype unitStart = i;
        while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.'))
            ++i;
        const QByteArrayView unit = text.sliced(unitStart, i - unitStart);
        double scale = 0;
        if (unit == "h") scale = 3'600'000;
        else if (unit == "m") scale = 60'000;
        else if (unit == "s") scale = 1000;
        else if (unit == "ms") scale = 1;
        else if (unit == "us" || unit == "\xC2\xB5s") scale = 0.001;
        else if (unit == "ns") scale = 0.000001;
        else return std::nullopt;
        total += *number * scale;
    }
    return clampWait(std::ceil(total));
}

std::optional<std::chrono::milliseconds> rateLimitResetFromHeaders(const HttpHeaders &headers, const char **from)
{
    std::optional<std::chrono::milliseconds> wait;
    for (const char *kind : {"requests", "tokens"}) {
        const QByteArray remaining = headers.value(QByteArray("x-ratelimit-remaining-") + kind).trimmed();
        if (remaining != "0")
            continue;
        if (auto reset = parseGoDuration(headers.value(QByteArray("x-ratelimit-reset-") + kind)); reset && (!wait || *reset > *wait)) {
            wait = *reset;
            if (from)
                *from = std::strcmp(kind, "requests") == 0 ? "x-ratelimit-reset-requests" : "x-ratelimit-reset-tokens";
        }
    }
    return wait;
}

} // namespace sb
