#pragma once

#include <QHostAddress>
#include <QString>

#include <optional>

namespace sb {

// Where the proxy port listens: --listen HOST:PORT on the command line and the Settings page.
struct ListenAddress {
    QHostAddress host = QHostAddress(QHostAddress::LocalHost); // loopback only unless the user says otherwise
    quint16 port = 8400;                                       // the documented default (README)

    // Accepts "HOST:PORT", "[IPv6]:PORT", "localhost:PORT" and a bare "PORT" (loopback). Host names
    // other than localhost are refused rather than resolved: resolving would block. Port 0 = any free port.
    static std::optional<ListenAddress> parse(const QString &text, QString *error = nullptr);
    QString toString() const;
    bool isLoopback() const { return host.isLoopback(); }
};

} // namespace sb
