#include "widgets/KpiTile.h"

#include <QLabel>
#include <QVBoxLayout>

KpiTile::KpiTile(const QString &title, QWidget *parent) : QFrame(parent)
{
    setFrameShape(QFrame::StyledPanel);
    setMinimumWidth(150);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(14, 10, 14, 10);
    layout->setSpacing(2);
    m_title = new QLabel(title, this);
    m_title->setStyleSheet(QStringLiteral("font-size: 12px;"));
    m_title->setForegroundRole(QPalette::PlaceholderText);
    m_value = new QLabel(QStringLiteral("—"), this);
    m_value->setStyleSheet(QStringLiteral("font-size: 24px; font-weight: 600;"));
    m_caption = new QLabel(this);
    m_caption->setStyleSheet(QStringLiteral("font-size: 11px;"));
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_title);
    layout->addWidget(m_value);
    layout->addWidget(m_caption);
}

void KpiTile::setValue(const QString &value, const QString &caption)
{
    m_value->setText(value);
    m_caption->setText(caption);
}

QString KpiTile::value() const
{
    return m_value->text();
}

QString KpiTile::title() const
{
    return m_title->text();
}

QString KpiTile::caption() const
{
    return m_caption->text();
}
