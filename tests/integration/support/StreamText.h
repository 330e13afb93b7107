#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace sb::test {

// What an OpenAI SSE stream carried to the client: the text, how many chunks it came in, whether
// it ended with [DONE], the error event that ended it (if one did) and the usage chunk (if sent).
struct StreamText {
    QString content;
    bool done = false;
    int chunks = 0;
    QJsonObject error;
    QJsonObject usage;
};

StreamText parseStream(const QByteArray &body);

// The payload of every "data: " line of an SSE body, in order, [DONE] included.
QList<QByteArray> sseData(const QByteArray &body);

} // namespace sb::test
