#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;

namespace sb {

// HTTPS on the proxy port: the certificate chain and key files (PEM), each with "Browse…", and
// under them what those files hold, read as the engine would read them: the certificate's subject,
// names, expiry and SHA-256 fingerprint, or why the engine could not serve with them. Both empty:
// plain HTTP.
class TlsFilesEditor : public QWidget {
    Q_OBJECT
public:
    explicit TlsFilesEditor(QWidget *parent = nullptr);

    QString certificateFile() const;
    QString keyFile() const;
    void setFiles(const QString &certificateFile, const QString &keyFile);
    // Why the files cannot serve HTTPS (empty when they can, or when both are empty).
    const QString &problem() const { return m_problem; }
    QString description() const;

    QLineEdit *certificateEdit() const { return m_certificate; }
    QLineEdit *keyEdit() const { return m_key; }

signals:
    void filesEdited();

private:
    QToolButton *browseButton(QLineEdit *edit, const QString &title);
    void inspect();
    void describe();

    QLineEdit *m_certificate = nullptr;
    QLineEdit *m_key = nullptr;
    QLabel *m_state = nullptr;
    QString m_problem;
};

} // namespace sb
