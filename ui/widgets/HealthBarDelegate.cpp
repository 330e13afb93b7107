#include "widgets/HealthBarDelegate.h"

#include "ConsoleStyle.h"
#include "models/ChannelTableModel.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace sb {

QColor HealthBarDelegate::scoreColor(double score)
{
    if (score < 30)
        return stateColor(ChannelState::Open);
    if (score < 50)
        return stateColor(ChannelState::Degraded);
    return stateColor(ChannelState::Closed);
}

void HealthBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const double score = std::clamp(index.data(ChannelTableModel::ScoreRole).toDouble(), 0.0, 100.0);
    const QString text = index.data(Qt::DisplayRole).toString();
    const QFontMetrics metrics(option.font);
    const int numberWidth = metrics.horizontalAdvance(QStringLiteral("100")) + 8;
    const QRect numberRect(option.rect.left() + 6, option.rect.top(), numberWidth, option.rect.height());
    const int barHeight = std::max(6, option.rect.height() / 3);
    const QRect track(numberRect.right() + 2, option.rect.center().y() - barHeight / 2 + 1,
                      std::max(10, option.rect.right() - numberRect.right() - 10), barHeight);

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QColor trackColor = option.palette.text().color();
    trackColor.setAlpha(35);
    painter->setPen(Qt::NoPen);
    painter->setBrush(trackColor);
    painter->drawRoundedRect(track, 3, 3);
    QRect fill = track;
    fill.setWidth(static_cast<int>(track.width() * score / 100.0));
    painter->setBrush(scoreColor(score));
    if (fill.width() > 0)
        painter->drawRoundedRect(fill, 3, 3);
    const bool selected = option.state & QStyle::State_Selected;
    painter->setPen(selected ? option.palette.highlightedText().color() : option.palette.text().color());
    painter->setFont(option.font);
    painter->drawText(numberRect, Qt::AlignRight | Qt::AlignVCenter, text);
    painter->restore();
}

QSize HealthBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(std::max(size.width(), 150));
    return size;
}

} // namespace sb
