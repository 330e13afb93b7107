#pragma once

#include "model/EngineConfig.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace sb {

class ConfigStore;
class PriceTableModel;

// The Providers page's price table (prices per model, USD per 1M input / output tokens),
// edited in place: Add price, Remove, then Save prices, which goes through
// ConfigStore::save like the dialogs do, so the running engine prices the next request with it.
// Problems show under the table as they are typed and keep Save disabled; Revert drops the draft.
class PriceEditor : public QWidget {
    Q_OBJECT
public:
    explicit PriceEditor(QWidget *parent = nullptr);

    void setConfigStore(ConfigStore *store); // null: read-only
    PriceTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString problemText() const;
    bool save();
    void revert();

public slots:
    void setConfig(sb::EngineConfigPtr config);

private:
    void updateState();

    QPointer<ConfigStore> m_store;
    PriceTableModel *m_model = nullptr;
    QTableView *m_view = nullptr;
    QLabel *m_problems = nullptr;
    QLabel *m_unpriced = nullptr;
    QPushButton *m_add = nullptr;
    QPushButton *m_remove = nullptr;
    QPushButton *m_revert = nullptr;
    QPushButton *m_save = nullptr;
};

} // namespace sb
