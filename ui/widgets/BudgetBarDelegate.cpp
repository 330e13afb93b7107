#include "widgets/BudgetBarDelegate.h"

#include "ConsoleStyle.h"
#include "providers/RouteTableModel.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace sb {

QColor BudgetBarDelegate::levelColor(int level)
{
    switch (static_cast<RouteTableModel::BudgetLevel>(level)) {
    case RouteTableModel::BudgetLevel::Stopped: return stateColor(ChannelState::Open);
    case RouteTableModel::BudgetLevel::Warning: return stateColor(ChannelState::HalfOpen);
    case RouteTableModel::BudgetLevel::Within: return stateColor(ChannelState::Closed);
    case RouteTableModel::BudgetLevel::None: break;
    }
    return {};
}

void BudgetBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const double fraction = index.data(RouteTableModel::BudgetFractionRole).toDouble();
    const QColor color = levelColor(index.data(RouteTableModel::BudgetLevelRole).toInt());
    const int barHeight = std::max(6, option.rect.height() / 3);
    const QRect track(option.rect.left() + 6, option.rect.center().y() - barHeight / 2 + 1, kBarWidth, barHeight);
    QRect textRect = option.rect.adjusted(6, 0, -4, 0);

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    if (fraction >= 0 && color.isValid()) {
        QColor trackColor = option.palette.text().color();
        trackColor.setAlpha(35);
        painter->setPen(Qt::NoPen);
        painter->setBrush(trackColor);
        painter->drawRoundedRect(track, 3, 3);
        QRect fill = track;
        fill.setWidth(static_cast<int>(track.width() * std::clamp(fraction, 0.0, 1.0)));
        painter->setBrush(color);
        if (fill.width() > 0)
            painter->drawRoundedRect(fill, 3, 3);
        textRect.setLeft(track.right() + 8);
    }
    const bool selected = option.state & QStyle::State_Selected;
    painter->setPen(selected ? option.palette.highlightedText().color() : option.palette.text().color());
    painter->setFont(option.font);
    const QString text = option.fontMetrics.elidedText(index.data(Qt::DisplayRole).toString(), Qt::ElideRight, textRect.width());
    painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter, text);
    painter->restore();
}

QSize BudgetBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(size.width() + kBarWidth + 14);
    return size;
}

} // namespace sb
