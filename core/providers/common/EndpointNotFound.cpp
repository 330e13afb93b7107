#include "providers/common/EndpointNotFound.h"

#include "common/SecretMask.h"
#include "providers/common/RetryAfter.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace sb {

namespace {

QString firstMessage(const QJsonObject &object)
{
    for (const char *name : {"message", "error_msg", "detail", "error", "title"}) {
        const QJsonValue value = object.value(QLatin1String(name));
        if (value.isString() && !value.toString().trimmed().isEmpty())
            return value.toString();
        if (value.isObject()) {
            const QString inner = firstMessage(value.toObject());
            if (!inner.isEmpty())
                return inner;
        }
    }
    return {};
}

QString htmlText(const QString &html)
{
    static const QRegularExpression title(QStringLiteral("<title[^>]*>(.*?)</title>"),
                                          QRegularExpression::CaseInsensitiveOption | QRegularExpression::DotMatchesEverythingOption);
    if (const auto m = title.match(html); m.hasMatch() && !m.captured(1).trimmed().isEmpty())
        return m.captured(1);
    static const QRegularExpression tags(QStringLiteral("<[^>]*>"));
    return QString(html).replace(tags, QStringLiteral(" "));
}

} // namespace

QString upstreamExcerpt(const QByteArray &body, int maxChars)
{
    QString text;
    const QJsonDocument json = QJsonDocument::fromJson(body);
    if (json.isObject())
        text = firstMessage(json.object());
    if (text.isEmpty()) {
        text = QString::fromUtf8(body.left(4096));
        if (text.contains(QLatin1Char('<')))
            text = htmlText(text);
    }
    text = text.simplified();
    // A body may echo what it was sent; a long unbroken token is shown masked, never whole.
    static const QRegularExpression token(QStringLiteral("[A-Za-z0-9_\\-]{24,}"));
    QString masked;
    qsizetype last = 0;
    for (auto it = token.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        masked += text.mid(last, m.capturedStart() - last) + maskSecret(m.captured());
        last = m.capturedEnd();
    }
    masked += text.mid(last);
    if (masked.size() > maxChars)
        masked = masked.left(maxChars - 1) + QChar(0x2026);
    return masked;
}

std::optional<Outcome> endpointNotFoundOutcome(int httpStatus, const HttpHeaders &headers, const QByteArray &body)
{
    if (httpStatus != 404)
        return std::nullopt;
    const QJsonDocument json = QJsonDocument::fromJson(body);
    if ((json.isObject() || json.isArray()) && QString::fromUtf8(body).contains(QLatin1String("model"), Qt::CaseInsensitive))
        return std::nullopt; // the dialect's own error for an unknown model
    Outcome o;
    o.kind = OutcomeKind::ProviderDown;
    o.httpStatus = httpStatus;
    o.providerCode = QStringLiteral("endpoint_not_found");
    o.retryAfter = retryAfterFromHeaders(headers);
    o.misconfiguration = Misconfiguration::EndpointNotFound;
    const QString excerpt = upstreamExcerpt(body);
    o.message = QStringLiteral("HTTP 404 '%1' (no such endpoint)").arg(excerpt.isEmpty() ? QStringLiteral("Not Found") : excerpt);
    return o;
}

} // namespace sb
