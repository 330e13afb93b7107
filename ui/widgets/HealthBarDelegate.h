#pragma once

#include <QStyledItemDelegate>

namespace sb {

// The Health column: the score as a number next to a 0–100 bar, coloured like the pool thresholds
// (degraded below 50, red below 30). Reads ChannelTableModel::ScoreRole.
class HealthBarDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    static QColor scoreColor(double score);
};

} // namespace sb
