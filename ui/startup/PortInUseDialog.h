#pragma once

#include <QDialog>

#include <memory>
#include <optional>

class QPushButton;
class QSpinBox;

namespace Ui {
class PortInUseDialog;
}

namespace sb {

// At start, when the proxy's port is taken by another program: says which address is in use and
// offers the next free port (or any other the user types, checked as it is typed), so the console
// starts with its engine instead of opening without one. The choice is kept in the configuration
// (EngineHost::Options::movePortTo); "Open without the proxy" leaves everything as it was.
class PortInUseDialog : public QDialog {
    Q_OBJECT
public:
    PortInUseDialog(const QString &host, quint16 busyPort, std::optional<quint16> suggested, QWidget *parent = nullptr);
    ~PortInUseDialog() override;

    // The port to start on once accepted.
    quint16 chosenPort() const;

    QSpinBox *portEdit() const;
    QPushButton *startButton() const { return m_start; }
    QPushButton *withoutProxyButton() const { return m_withoutProxy; }
    QString explanationText() const;
    QString portStateText() const;

private:
    void checkPort();

    std::unique_ptr<Ui::PortInUseDialog> m_ui;
    QString m_host;
    quint16 m_busyPort = 0;
    QPushButton *m_start = nullptr;
    QPushButton *m_withoutProxy = nullptr;
};

} // namespace sb
