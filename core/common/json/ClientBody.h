#pragma once

#include "common/json/JsonObjectScan.h"

#include <QByteArray>
#include <QJsonObject>

#include <functional>
#include <memory>
#include <optional>

namespace sb {

// A client's OpenAI request body on its way through the proxy: the bytes it sent and the
// QJsonObject they say, built only when someone asks for it. The usual request is checked on its
// bytes (ChatRequest) and forwarded as they are by a pass-through dialect, so it is never parsed
// into values: that was ~11,000 instructions of the ~123,000 a request cost (callgrind). Dialect
// translation, the cache's keys and `auto` ask for object().
//
// Copies share one state, so the object is parsed at most once however many hands the body goes
// through; they must stay on one thread (a request's worker). edit() gives the copy a state of
// its own.
class ClientBody {
public:
    ClientBody() = default;
    // A body the proxy built, or parsed already; `clientBytes` are what it was parsed from, while
    // it still says exactly that.
    // Implicit, so that a QJsonObject serves wherever a body is asked for.
    ClientBody(QJsonObject object, QByteArray clientBytes = {});
    // The client's bytes, accepted by `scan`; the object is parsed from them when first asked for.
    ClientBody(QByteArray clientBytes, JsonObjectScan scan);
    // A body another API's request translates into, made by `make` when first asked for (a
    // request that goes to an upstream of its own API never asks). It has no client bytes: the
    // client did not send these.
    static ClientBody deferred(std::function<QJsonObject()> make);

    const QJsonObject &object() const;
    // The object, to change it; the body no longer says what the client sent.
    QJsonObject &edit();

    // What the client sent, while the body is still exactly that; empty otherwise.
    const QByteArray &clientBytes() const;
    // The top-level members of clientBytes(), when a scan found them; nullptr otherwise.
    const JsonObjectScan *scan() const;

private:
    struct State {
        QByteArray clientBytes; // the scan's keys point into these bytes
        std::optional<JsonObjectScan> scan;
        std::optional<QJsonObject> object;
        std::function<QJsonObject()> make; // for a deferred body
    };
    std::shared_ptr<State> m_state;
};

} // namespace sb
