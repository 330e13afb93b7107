#include "pages/PlaceholderPage.h"

#include <QLabel>
#include <QVBoxLayout>

PlaceholderPage::PlaceholderPage(const QString &title, const QString &explanation, QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 20, 24, 20);
    auto *heading = new QLabel(title, this);
    QFont font = heading->font();
    font.setPointSizeF(font.pointSizeF() * 1.6);
    font.setBold(true);
    heading->setFont(font);
    auto *text = new QLabel(explanation, this);
    text->setWordWrap(true);
    text->setStyleSheet(QStringLiteral("color: palette(mid);"));
    layout->addWidget(heading);
    layout->addWidget(text);
    layout->addStretch(1);
}
