#pragma once

#include "engine/EngineHost.h"

#include <QString>

#include <functional>
#include <optional>

class QWidget;

namespace sb {

// Starts the console's embedded engine so that a start-up conflict does not strand the user with a
// window and no engine: a proxy port taken by another program is answered by a port the user
// accepts (the next free one offered; PortInUseDialog) and the engine starts there, remembered; a
// database another Switchboard already runs on is said so (one Switchboard per database) instead
// of a second engine fighting the first over the port.
class ConsoleStartup {
public:
    enum class Result {
        Started,
        AlreadyRunning, // another Switchboard has the database: the caller tells the user and stops
        WithoutProxy,   // the user chose to open the console without the engine
        Failed,         // any other reason, in *error
    };

    // How the user is asked; tests answer in their place. The default shows PortInUseDialog.
    using PortQuestion = std::function<std::optional<quint16>(const QString &host, quint16 busyPort, std::optional<quint16> suggested)>;

    explicit ConsoleStartup(QWidget *parent = nullptr);

    void setPortQuestion(PortQuestion question) { m_askPort = std::move(question); }

    Result start(EngineHost &host, EngineHost::Options options, QString *error);

private:
    QWidget *m_parent = nullptr;
    PortQuestion m_askPort;
};

} // namespace sb
