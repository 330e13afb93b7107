#pragma once

#include <QWidget>

class QLabel;

namespace sb {

// What a page that needs the embedded engine's database or configuration store shows while the
// console is attached to another instance: a sentence that says why the page is empty and how to
// get it back, instead of the embedded engine's data passed off as the remote one's.
class UnavailableNotice : public QWidget {
    Q_OBJECT
public:
    explicit UnavailableNotice(QWidget *parent = nullptr);

    void showReason(const QString &page, const QString &reason);
    QString text() const; // title and sentence, plain (tests)

signals:
    void detachRequested();

private:
    QLabel *m_title = nullptr;
    QLabel *m_reason = nullptr;
};

} // namespace sb
