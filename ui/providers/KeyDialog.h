#pragma once

#include "model/ProviderConfig.h"

#include <QDialog>

#include <memory>

namespace Ui {
class KeyDialog;
}

namespace sb {

// Add or edit one API key. The secret is typed (or pasted) into a password field and never shown
// again: an existing key's field starts empty — left empty it keeps the stored secret — and the key
// is named by its mask only. Disabling a key asks why, so the Keys table can say it later.
class KeyDialog : public QDialog {
    Q_OBJECT
public:
    KeyDialog(const ApiKeyConfig &key, bool isNew, QWidget *parent = nullptr);
    ~KeyDialog() override;

    ApiKeyConfig key() const; // the edited key; its old secret when none was typed
    QStringList problems() const { return m_problems; }

private:
    void validate();

    std::unique_ptr<Ui::KeyDialog> m_ui;
    ApiKeyConfig m_original;
    bool m_isNew = true;
    QStringList m_problems;
};

} // namespace sb
