#include "widgets/WarningStrip.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>

namespace sb {

WarningStrip::WarningStrip(const QString &name, const QString &textName, const Colours &colours, QWidget *parent) : QFrame(parent)
{
    setObjectName(name);
    setStyleSheet(QStringLiteral("QFrame#%1 { background: %2; border: 1px solid %3; border-left: 5px solid %3; }"
                                 "QFrame#%1 QLabel { color: %4; background: transparent; border: none; }")
                      .arg(name, colours.wash.name(), colours.edge.name(), colours.text.name()));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->setSpacing(10);
    auto *icon = new QLabel(this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(22, 22));
    icon->setAlignment(Qt::AlignTop);
    layout->addWidget(icon);
    m_text = new QLabel(this);
    m_text->setObjectName(textName);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::RichText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text, 1);
    hide();
}

QString WarningStrip::text() const
{
    return m_text->text();
}

void WarningStrip::showHtml(const QString &html)
{
    m_text->setText(html);
    show();
}

void WarningStrip::clearText()
{
    m_text->clear();
    hide();
}

} // namespace sb
