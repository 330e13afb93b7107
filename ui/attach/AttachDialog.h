#pragma once

#include "remote/RemoteGateway.h"

#include <QDialog>

#include <memory>

class QPushButton;

namespace Ui {
class AttachDialog;
}

namespace sb {

// "Attach to instance…": host, port and token (masked) of a running Switchboard, validated inline;
// over TLS, optionally a certificate file to trust besides the system's CAs (a self-signed instance).
// Connect starts a RemoteGateway and waits for its first answer: Connected closes the dialog (after
// showing the sentence for a moment), Cannot reach … or a refused token stays on screen under the
// fields so the operator can correct them. The token is typed here or taken from SWITCHBOARD_TOKEN —
// never from the command line, where every user of the machine can read it in the process list.
class AttachDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr int kConnectedPauseMs = 700; // long enough to read "Watching …" before it closes

    explicit AttachDialog(QWidget *parent = nullptr);
    ~AttachDialog() override;

    // Fills the fields (e.g. from --attach HOST:PORT); an empty token leaves the field empty.
    void setTarget(const RemoteGateway::Target &target);
    RemoteGateway::Target target() const;
    QStringList problems() const { return m_problems; }
    QPushButton *connectButton() const { return m_connect; }
    QString stateText() const; // the line under the fields (tests)

    // After accepted(): the gateway that connected, stopped; the caller owns it and starts it.
    RemoteGateway *takeGateway();

public slots:
    void connectToInstance();

private:
    void fieldsEdited(); // clears the last attempt's sentence, then validate()
    void validate();
    void validateTrust(); // part of validate(): the certificate file to trust, read and described
    void onStateChanged(RemoteGateway::State state, const QString &message);
    void dropGateway();
    void setEditing(bool editing);

    std::unique_ptr<Ui::AttachDialog> m_ui;
    QPushButton *m_connect = nullptr;
    RemoteGateway *m_gateway = nullptr; // a child of the dialog until taken
    QStringList m_problems;
};

} // namespace sb
