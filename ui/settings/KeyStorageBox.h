#pragma once

#include <QGroupBox>
#include <QPointer>

class QLabel;
class QPushButton;

namespace sb {

class EngineHost;

// Settings → API keys: where this database's keys are kept (the keyring, the database file, or a
// keyring that cannot be reached) and the one button that moves them to the other place. Moving is
// never implicit: the console and `--headless` both read the keys from where the database says they
// are, so a move is something the user decides and sees, asked for once more in a confirmation.
class KeyStorageBox : public QGroupBox {
    Q_OBJECT
public:
    explicit KeyStorageBox(QWidget *parent = nullptr);

    void setHost(EngineHost *host);

    // The button's work once confirmed; tests call it directly. False with the reason shown.
    bool moveKeys();

    QLabel *placeLabel() const { return m_place; }
    QPushButton *moveButton() const { return m_move; }
    QString statusText() const;

private:
    void refresh();
    void confirmAndMove();
    void setStatus(const QString &text, bool problem);

    QPointer<EngineHost> m_host;
    QLabel *m_place = nullptr;
    QPushButton *m_move = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace sb
