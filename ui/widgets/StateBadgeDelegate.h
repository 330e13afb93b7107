#pragma once

#include <QStyledItemDelegate>

namespace sb {

// The State column: a rounded badge in the state's colour with the state's name in it (never
// colour alone). Reads ChannelTableModel::StateRole and the display text.
class StateBadgeDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace sb
