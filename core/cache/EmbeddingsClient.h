#pragma once

#include <QByteArray>
#include <QString>

#include <chrono>
#include <functional>
#include <optional>
#include <vector>

namespace sb {

// What the semantic cache needs of an embeddings call: the callback, the time it may take, and the
// reading of the answer in OpenAI's shape (data[0].embedding), which is what the dialect's adapter
// makes of its provider's answer. The call itself is made by the proxy, through the router's key
// rings and channel health like every call (proxy/RoutedEmbeddings), so a Gemini or DashScope
// embeddings channel works as an OpenAI one does.
class EmbeddingsClient {
public:
    using Done = std::function<void(std::optional<std::vector<float>> embedding, const QString &error)>;

    // How long a lookup may wait for its embedding before the request goes on as a miss: the
    // semantic cache is there to save time, a slow embeddings call must not cost more than it saves.
    static constexpr std::chrono::milliseconds kTimeout{3000};

    // The first vector of an OpenAI embeddings answer ({"data":[{"embedding":[…]}]}).
    static std::optional<std::vector<float>> parse(const QByteArray &body, QString *error);
};

} // namespace sb
