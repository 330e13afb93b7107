#include "providers/common/ApiBaseUrl.h"

#include <array>

namespace sb {

namespace {

// Whether "scheme://host[:port]" is all there is: no '/' after the authority.
bool hasNoPath(const QString &url)
{
    const qsizetype scheme = url.indexOf(QLatin1String("://"));
    return scheme >= 0 && url.indexOf(QLatin1Char('/'), scheme + 3) < 0;
}

} // namespace

ApiBaseUrl readApiBaseUrl(const QString &baseUrl, std::initializer_list<QStringView> versionPaths)
{
    QString base = baseUrl.trimmed();
    while (base.endsWith(QLatin1Char('/')) && !base.endsWith(QLatin1String("://")))
        base.chop(1);
    for (QStringView version : versionPaths)
        if (base.endsWith(version, Qt::CaseInsensitive))
            return ApiBaseUrl{base.left(base.size() - version.size()), base};
    if (hasNoPath(base) && versionPaths.size() > 0)
        return ApiBaseUrl{base, base + versionPaths.begin()->toString()};
    return ApiBaseUrl{base, base};
}

QUrl apiUrl(const QString &baseUrl, QStringView versionPath, QStringView path)
{
    struct Built {
        QString base;
        QString version;
        QString path;
        QUrl url;
    };
    thread_local std::array<Built, 4> recent;
    thread_local std::size_t next = 0;
    for (const Built &b : recent)
        if (!b.url.isEmpty() && b.base == baseUrl && b.path == path && b.version == versionPath)
            return b.url;
    QUrl url(readApiBaseUrl(baseUrl, {versionPath}).api + path.toString());
    recent[next] = Built{baseUrl, versionPath.toString(), path.toString(), url};
    next = (next + 1) % recent.size();
    return url;
}

} // namespace sb
