#pragma once

#include <QFrame>

class QLabel;

// One headline number on the Overview ("Availability 5m  99.98 %"), with a caption under it.
class KpiTile : public QFrame {
    Q_OBJECT
public:
    KpiTile(const QString &title, QWidget *parent = nullptr);
    void setValue(const QString &value, const QString &caption = QString());
    QString value() const;
    QString title() const;
    QString caption() const;

private:
    QLabel *m_title = nullptr;
    QLabel *m_value = nullptr;
    QLabel *m_caption = nullptr;
};
