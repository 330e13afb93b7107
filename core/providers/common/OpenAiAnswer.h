#pragma once

#include "common/json/JsonObjectScan.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace sb {

// A successful buffered answer (chat completion or embeddings list) on its way to the client in
// OpenAI's shape, still without the caller's logical model name. Either an object a dialect built
// (or that needed Qt's parser), or the provider's own bytes when they already are that shape: an
// OpenAI-compatible provider's answer goes out as it came, with only "model" (and a missing
// "created") written in, instead of being parsed and serialised again.
class OpenAiAnswer {
public:
    OpenAiAnswer() = default;
    static OpenAiAnswer fromObject(QJsonObject object);
    // `body` must be what `scan` accepted. std::nullopt when its "created" is not a plain integer
    // (only the object path keeps the old reading of such values exactly).
    static std::optional<OpenAiAnswer> passThrough(const QByteArray &body, const JsonObjectScan &scan);

    bool isPassThrough() const { return m_passThrough; }
    // A pass-through answer's bytes as the provider sent them (its "model" and "created" not yet
    // written) and their scan; nullptr for an object.
    const JsonObjectScan *providerScan() const { return m_passThrough ? &m_scan : nullptr; }
    const QByteArray &providerBytes() const { return m_body; }
    bool isEmpty() const { return !m_passThrough && m_object.isEmpty(); }

    // The client's JSON: "model" set to `model`; "created" set to `nowSeconds` when the provider
    // gave none (or zero or less).
    QByteArray toJson(const QString &model, qint64 nowSeconds) const;

private:
    QJsonObject m_object;
    bool m_passThrough = false;
    QByteArray m_body;
    JsonObjectScan m_scan; // of m_body: its keys point into the data m_body shares
    bool m_needsCreated = false;
};

} // namespace sb
