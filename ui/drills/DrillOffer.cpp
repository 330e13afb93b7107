#include "DrillOffer.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>

namespace sb {

DrillOffer::DrillOffer(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("drillOffer"));
    setFrameShape(QFrame::StyledPanel);
    setStyleSheet(QStringLiteral("QFrame#drillOffer { background: palette(alternate-base); border-radius: 4px; }"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 8, 8, 8);
    auto *text = new QLabel(tr("<b>Demo configuration.</b> See Switchboard fail over before real traffic does: the launch-day "
                               "drill knocks out the primary provider for two minutes of scenario time (about 30 s at ×10) "
                               "while you watch this page."),
                            this);
    text->setWordWrap(true);
    m_run = new QPushButton(tr("Run the launch-day drill"), this);
    m_run->setDefault(true);
    auto *close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss"));
    close->setAutoRaise(true);
    layout->addWidget(text, 1);
    layout->addWidget(m_run);
    layout->addWidget(close);
    connect(m_run, &QPushButton::clicked, this, [this] { emit runRequested(QStringLiteral("launch-day"), 10.0); });
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        emit dismissed();
    });
}

} // namespace sb
