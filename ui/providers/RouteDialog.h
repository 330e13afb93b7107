#pragma once

#include "model/BudgetConfig.h"
#include "model/RouteConfig.h"

#include <QDialog>

#include <memory>

class QListView;
class QPushButton;

namespace Ui {
class RouteDialog;
}

namespace sb {

class ConfigStore;
class TierListModel;

// Add or edit one route: the logical model callers ask for, its strategy, and the tier editor —
// tier 0 is the model's own channels in order, then fallback models by priority. Both lists reorder
// by drag and drop and by Move up / Move down (also Ctrl+Up / Ctrl+Down) for keyboard users.
// Below them the route's budget: UTC day or month, an alert and an optional hard stop in US dollars.
class RouteDialog : public QDialog {
    Q_OBJECT
public:
    // routeId 0: a new route.
    RouteDialog(ConfigStore &store, int routeId, QWidget *parent = nullptr);
    ~RouteDialog() override;

    RouteConfig route() const;
    // The budget the fields describe; period and zero limits when both fields are empty (no budget).
    BudgetConfig budget() const;
    QStringList problems() const { return m_problems; }
    TierListModel *channelModel() const { return m_channels; }
    TierListModel *fallbackModel() const { return m_fallbacks; }
    bool save();

signals:
    void saved(int routeId);

private:
    struct TierWidgets {
        QListView *view;
        QPushButton *up;
        QPushButton *down;
        QPushButton *remove;
    };
    void setUpTier(TierListModel *model, const TierWidgets &widgets);
    void refillPickers();
    void validate();
    QString budgetProblem() const;

    std::unique_ptr<Ui::RouteDialog> m_ui;
    ConfigStore &m_store;
    int m_routeId = 0;
    QString m_originalName;
    TierListModel *m_channels = nullptr;
    TierListModel *m_fallbacks = nullptr;
    QStringList m_problems;
};

} // namespace sb
