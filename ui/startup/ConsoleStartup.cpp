#include "startup/ConsoleStartup.h"

#include "net/PortProbe.h"
#include "startup/PortInUseDialog.h"

#include <QHostAddress>

namespace sb {

ConsoleStartup::ConsoleStartup(QWidget *parent) : m_parent(parent)
{
    m_askPort = [this](const QString &host, quint16 busyPort, std::optional<quint16> suggested) -> std::optional<quint16> {
        PortInUseDialog dialog(host, busyPort, suggested, m_parent);
        if (dialog.exec() != QDialog::Accepted)
            return std::nullopt;
        return dialog.chosenPort();
    };
}

ConsoleStartup::Result ConsoleStartup::start(EngineHost &host, EngineHost::Options options, QString *error)
{
    // A few rounds at most: a port another program takes between the question and the start is
    // asked about again, with the next one offered.
    for (int round = 0; round < 5; ++round) {
        if (host.start(options, error))
            return Result::Started;
        switch (host.startFailure()) {
        case EngineHost::StartFailure::AlreadyRunning:
            return Result::AlreadyRunning;
        case EngineHost::StartFailure::PortInUse: {
            if (host.listenPinned())
                return Result::Failed; // --listen or --config said where; the sentence says how to change it
            const std::optional<quint16> suggested = nextFreePort(QHostAddress(host.busyHost()), host.busyPort());
            const std::optional<quint16> chosen = m_askPort(host.busyHost(), host.busyPort(), suggested);
            if (!chosen)
                return Result::WithoutProxy;
            options.movePortTo = *chosen;
            break;
        }
        default:
            return Result::Failed;
        }
    }
    return Result::Failed;
}

} // namespace sb
