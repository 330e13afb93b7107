#include "widgets/StateBadgeDelegate.h"

#include "ConsoleStyle.h"
#include "models/ChannelTableModel.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

namespace sb {

static QFont badgeFont(const QFont &base)
{
    QFont font = base;
    font.setBold(true);
    font.setPointSizeF(base.pointSizeF() * 0.9);
    return font;
}

void StateBadgeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, widget);

    const auto state = static_cast<ChannelState>(index.data(ChannelTableModel::StateRole).toInt());
    const QString text = index.data(Qt::DisplayRole).toString().toUpper();
    const QFont font = badgeFont(option.font);
    const QFontMetrics metrics(font);
    const int height = std::min(option.rect.height() - 6, metrics.height() + 6);
    const int width = metrics.horizontalAdvance(text) + 16;
    const QRect badge(option.rect.left() + 6, option.rect.center().y() - height / 2 + 1, width, height);

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    QPainterPath path;
    path.addRoundedRect(badge, height / 2.0, height / 2.0);
    painter->fillPath(path, stateColor(state));
    painter->setFont(font);
    // Amber is light: dark text keeps the contrast; the others carry white.
    painter->setPen(state == ChannelState::HalfOpen ? QColor(0x21, 0x21, 0x21) : QColor(Qt::white));
    painter->drawText(badge, Qt::AlignCenter, text);
    painter->restore();
}

QSize StateBadgeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QFontMetrics metrics(badgeFont(option.font));
    const QString text = index.data(Qt::DisplayRole).toString().toUpper();
    return {metrics.horizontalAdvance(text) + 28, metrics.height() + 12};
}

} // namespace sb
