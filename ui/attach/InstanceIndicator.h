#pragma once

#include "remote/RemoteGateway.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace sb {

// The strip across the top of the console that says which instance every page shows: the
// embedded engine and its proxy address, or an attached instance's address and
// connection state. Attached, the whole strip takes the state's colour (green connected,
// amber connecting, red unreachable or refused) and names the state in words too, so an operator
// can never mistake a remote server for the local engine, nor a dead connection for a quiet one.
// Its button attaches, or goes back to the embedded engine. It never shows a token.
class InstanceIndicator : public QFrame {
    Q_OBJECT
public:
    explicit InstanceIndicator(QWidget *parent = nullptr);

    void showEmbedded(const QString &baseUrl); // empty: the embedded proxy is not running
    void showAttached(const QString &address, RemoteGateway::State state, const QString &sentence);

    bool isAttached() const { return m_attached; }
    QString text() const; // the strip's words, plain (tests, the window title)
    QColor background() const { return m_background; }
    static QString stateName(RemoteGateway::State state); // "Connected", "Unreachable", …

signals:
    void attachRequested();
    void detachRequested();

private:
    void paint(const QColor &background, const QColor &text);

    QLabel *m_badge = nullptr;
    QLabel *m_text = nullptr;
    QPushButton *m_button = nullptr;
    QColor m_background;
    bool m_attached = false;
};

} // namespace sb
