#pragma once

#include <QByteArray>

#include <mutex>
#include <optional>
#include <unordered_map>

namespace sb {

// What each HTTPS origin spoke when libcurl last finished a transfer to it (true: HTTP/2, which
// multiplexes; false: HTTP/1.x), learnt by the upstream client of any worker and read by all. A
// worker whose own client has not met an origin yet takes what another learnt: its first burst to
// an HTTP/1.1 origin then goes to the Http1Engine at once, rather than through libcurl, whose new
// connections would each do a full TLS handshake (libcurl keeps its tickets apart). Keyed by
// UpstreamClient::originKey; bounded, starting over past kMaxOrigins.
class OriginProtocols {
public:
    static OriginProtocols &shared();

    std::optional<bool> multiplexes(const QByteArray &origin) const;
    void learnt(const QByteArray &origin, bool multiplexes);

    static constexpr std::size_t kMaxOrigins = 1024;

private:
    mutable std::mutex m_mutex;
    std::unordered_map<QByteArray, bool> m_origins;
};

} // namespace sb
