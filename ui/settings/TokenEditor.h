#pragma once

#include <QWidget>

class QLineEdit;
class QToolButton;

namespace sb {

// The local token: masked unless "Show" is held down as a toggle, with "Generate" for a fresh random
// token and "Copy" so the token can reach a client without ever being displayed. The token is a
// secret like an API key: it never appears in a tooltip, a label or a log.
class TokenEditor : public QWidget {
    Q_OBJECT
public:
    explicit TokenEditor(QWidget *parent = nullptr);

    QString token() const;
    void setToken(const QString &token);
    bool isRevealed() const;

    QLineEdit *lineEdit() const { return m_edit; }
    QToolButton *showButton() const { return m_show; }
    QToolButton *generateButton() const { return m_generate; }
    QToolButton *copyButton() const { return m_copy; }

    // 32 random bytes from the operating system, URL-safe base64 ("sb-…", 46 characters).
    static QString generateToken();

signals:
    void tokenEdited();

private:
    void setRevealed(bool revealed);

    QLineEdit *m_edit = nullptr;
    QToolButton *m_show = nullptr;
    QToolButton *m_generate = nullptr;
    QToolButton *m_copy = nullptr;
};

} // namespace sb
