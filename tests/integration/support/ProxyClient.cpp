#include "ProxyClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QUrl>

namespace sb::test {

QJsonObject Reply::json() const
{
    return QJsonDocument::fromJson(body).object();
}

QJsonObject Reply::error() const
{
    return json().value(QLatin1String("error")).toObject();
}

QString Reply::errorCode() const
{
    return error().value(QLatin1String("code")).toString();
}

Reply ProxyClient::request(quint16 port, const QByteArray &method, const QString &path, const QByteArray &body,
                           const RawHeaders &headers)
{
    QNetworkRequest req(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(path)));
    req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    for (const auto &h : headers)
        req.setRawHeader(h.first, h.second);
    QNetworkReply *reply = m_http.sendCustomRequest(req, method, body);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    if (!reply->isFinished())
        finished.wait(20000);
    Reply out;
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    out.body = reply->readAll();
    for (const auto &pair : reply->rawHeaderPairs())
        out.headers.insert(pair.first.toLower(), pair.second);
    reply->deleteLater();
    return out;
}

Reply ProxyClient::postChat(quint16 port, const QByteArray &body, const RawHeaders &headers)
{
    return request(port, "POST", QStringLiteral("/v1/chat/completions"), body, headers);
}

QByteArray chatBody(std::optional<bool> stream, const QString &model, const QString &content)
{
    QJsonObject body{{"model", model}, {"messages", QJsonArray{QJsonObject{{"role", "user"}, {"content", content}}}}};
    if (stream)
        body.insert(QLatin1String("stream"), *stream);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

} // namespace sb::test
