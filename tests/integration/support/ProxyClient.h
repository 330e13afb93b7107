#pragma once

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QPair>
#include <QString>

#include <optional>

namespace sb::test {

// One answer of the proxy, as its HTTP client saw it.
struct Reply {
    int status = 0; // 0: no answer arrived in time
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names

    QJsonObject json() const;
    QJsonObject error() const;  // the OpenAI error object; empty when there is none
    QString errorCode() const;  // its "code"
};

using RawHeaders = QList<QPair<QByteArray, QByteArray>>;

// A real HTTP client (QNetworkAccessManager) in front of a proxy on 127.0.0.1. Each request blocks
// until the answer is complete, running the test thread's event loop meanwhile; after 20 s it is
// given up with status 0 (only a broken run waits that long).
class ProxyClient {
public:
    Reply request(quint16 port, const QByteArray &method, const QString &path, const QByteArray &body = {},
                  const RawHeaders &headers = {});
    Reply postChat(quint16 port, const QByteArray &body, const RawHeaders &headers = {});

private:
    QNetworkAccessManager m_http;
};

// A chat completions request with one user message. Without `stream` the field is left out, as
// most clients send it (the API's default: not streamed).
QByteArray chatBody(std::optional<bool> stream, const QString &model = QStringLiteral("gpt-4o"),
                    const QString &content = QStringLiteral("Say something."));

} // namespace sb::test
