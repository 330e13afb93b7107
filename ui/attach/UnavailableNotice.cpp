#include "attach/UnavailableNotice.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace sb {

UnavailableNotice::UnavailableNotice(QWidget *parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("unavailableNotice"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 14, 16, 10);
    layout->setSpacing(12);
    m_title = new QLabel(this);
    QFont font = m_title->font();
    font.setPointSizeF(font.pointSizeF() * 1.4);
    font.setBold(true);
    m_title->setFont(font);
    m_reason = new QLabel(this);
    m_reason->setObjectName(QStringLiteral("unavailableReason"));
    m_reason->setWordWrap(true);
    m_reason->setTextFormat(Qt::PlainText);
    m_reason->setMaximumWidth(720);
    auto *back = new QPushButton(tr("Back to the embedded engine"), this);
    back->setObjectName(QStringLiteral("noticeDetach"));
    connect(back, &QPushButton::clicked, this, &UnavailableNotice::detachRequested);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(back);
    buttons->addStretch(1);
    layout->addWidget(m_title);
    layout->addWidget(m_reason);
    layout->addLayout(buttons);
    layout->addStretch(1);
}

void UnavailableNotice::showReason(const QString &page, const QString &reason)
{
    m_title->setText(page);
    m_reason->setText(reason);
}

QString UnavailableNotice::text() const
{
    return m_title->text() + QLatin1Char('\n') + m_reason->text();
}

} // namespace sb
