#pragma once

#include <QStyledItemDelegate>

namespace sb {

// The routes table's spend column: a short bar of spend against the limit in the budget's state
// colour, then the figure in words ("$3.12 of $10.00 today · 31 %", plus "past the alert" or "hard
// stop reached", so the state is never told by colour alone). Reads RouteTableModel's
// BudgetLevelRole and BudgetFractionRole; a route without a limit gets the text only.
class BudgetBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    static constexpr int kBarWidth = 56;

    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    static QColor levelColor(int level); // int(RouteTableModel::BudgetLevel)
};

} // namespace sb
