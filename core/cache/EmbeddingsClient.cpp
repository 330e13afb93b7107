#include "cache/EmbeddingsClient.h"


#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>


namespace sb {

std::optional<std::vector<float>> EmbeddingsClient::parse(const QByteArray &body, QString *error)
{
    const QJsonArray vector = QJsonDocument::fromJson(body).object().value(QLatin1String("data")).toArray()
                                  .at(0).toObject().value(QLatin1String("embedding")).toArray();
    if (vector.isEmpty()) {
        if (error)
            *error = QStringLiteral("the embeddings answer has no data[0].embedding");
        return std::nullopt;
    }
    std::vector<float> out;
    out.reserve(std::size_t(vector.size()));
    for (const QJsonValue &v : vector)
        out.push_back(static_cast<float>(v.toDouble()));
    return out;
}

} // namespace sb
