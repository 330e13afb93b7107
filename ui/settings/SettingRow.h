#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace sb {

// One line of the Settings page: the editor, its unit, the default it would reset to, a reset
// button, and under them the sentence that says what is wrong with the value (inline validation,
// red text under the field, never a modal error after the fact).
class SettingRow : public QWidget {
    Q_OBJECT
public:
    SettingRow(QWidget *editor, const QString &unit, const QString &defaultText, QWidget *parent = nullptr);

    QWidget *editor() const { return m_editor; }
    QToolButton *resetButton() const { return m_reset; }

    void setError(const QString &sentence); // empty: no problem
    QString error() const;
    // Enabled only when the value differs from the default, so the button also says "changed".
    void setDefaulted(bool atDefault);

signals:
    void resetRequested();

private:
    QWidget *m_editor = nullptr;
    QLabel *m_default = nullptr;
    QLabel *m_error = nullptr;
    QToolButton *m_reset = nullptr;
};

} // namespace sb
