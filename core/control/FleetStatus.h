#pragma once

#include <QString>

#include <cstdint>

namespace sb {

// How this instance's link to its fleet is doing (FleetLink), for /metrics, /admin/fleet and the
// console's banner.
struct FleetStatus {
    bool connected = false;
    QString fleet;
    QString instance;
    QString redis; // the URL with its password masked
    QString lastError;
    std::int64_t disconnectedSinceWallMs = 0; // 0 while connected (or never tried)
    std::uint64_t published = 0; // changes this instance sent to the fleet
    std::uint64_t adopted = 0;   // the others' changes that changed something here
    std::uint64_t ignored = 0;   // … that changed nothing, or could not be read
    std::uint64_t dropped = 0;   // local events dropped from a full queue
    std::uint64_t reconnects = 0;
    std::uint64_t limitDraws = 0, limitGranted = 0, limitRefused = 0; // the shared rate limits
};

} // namespace sb
