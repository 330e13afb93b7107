#pragma once

#include "net/UpstreamTransfer.h"

#include <QtGlobal>

namespace sb {

// What a request's attempts need of the upstream side: start a transfer, and cancel, pause or
// resume it. UpstreamClient is the real one; the seam lets the proxy's failover logic be tested
// on FakeClock without sockets.
class UpstreamTransport {
public:
    virtual ~UpstreamTransport() = default;
    // Starts a transfer and returns its id (never 0). Every outcome arrives later through the
    // callbacks, never from inside start().
    virtual quint64 start(const UpstreamRequest &request, const TransferOptions &options, TransferCallbacks callbacks) = 0;
    // No callback follows. Unknown or finished ids are ignored.
    virtual void cancel(quint64 transferId) = 0;
    virtual void pause(quint64 transferId) = 0;
    virtual void resume(quint64 transferId) = 0;
};

} // namespace sb
