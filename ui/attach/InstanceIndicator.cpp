#include "attach/InstanceIndicator.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace sb {

namespace {

// The state colours: the same hues the channel badges use, so "red" means the same everywhere.
QColor stateBackground(RemoteGateway::State state)
{
    switch (state) {
    case RemoteGateway::State::Connected: return QColor(0x2e, 0x7d, 0x32);
    case RemoteGateway::State::Connecting: return QColor(0xf9, 0xa8, 0x25);
    case RemoteGateway::State::Unreachable:
    case RemoteGateway::State::Refused: return QColor(0xc6, 0x28, 0x28);
    case RemoteGateway::State::Disconnected: break;
    }
    return QColor(0x75, 0x75, 0x75);
}

} // namespace

InstanceIndicator::InstanceIndicator(QWidget *parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("instanceIndicator"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 5, 8, 5);
    layout->setSpacing(10);
    m_badge = new QLabel(this);
    m_badge->setObjectName(QStringLiteral("instanceBadge"));
    QFont bold = m_badge->font();
    bold.setBold(true);
    m_badge->setFont(bold);
    m_text = new QLabel(this);
    m_text->setObjectName(QStringLiteral("instanceText"));
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse); // addresses get copied into tickets
    m_button = new QPushButton(this);
    m_button->setObjectName(QStringLiteral("instanceButton"));
    m_button->setCursor(Qt::PointingHandCursor);
    layout->addWidget(m_badge);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_button);
    connect(m_button, &QPushButton::clicked, this, [this] {
        if (m_attached)
            emit detachRequested();
        else
            emit attachRequested();
    });
    showEmbedded(QString());
}

QString InstanceIndicator::stateName(RemoteGateway::State state)
{
    switch (state) {
    case RemoteGateway::State::Connecting: return tr("Connecting");
    case RemoteGateway::State::Connected: return tr("Connected");
    case RemoteGateway::State::Unreachable: return tr("Unreachable");
    case RemoteGateway::State::Refused: return tr("Refused");
    case RemoteGateway::State::Disconnected: break;
    }
    return tr("Not connected");
}

void InstanceIndicator::showEmbedded(const QString &baseUrl)
{
    m_attached = false;
    m_badge->setText(tr("EMBEDDED ENGINE"));
    m_text->setText(baseUrl.isEmpty() ? tr("proxy not running") : tr("proxy %1").arg(baseUrl));
    m_text->setToolTip(tr("The pages show the engine running inside this console."));
    m_button->setText(tr("Attach to instance…"));
    m_button->setToolTip(tr("Watch a running Switchboard (e.g. a headless one on a server) through its admin API"));
    // The everyday case stays quiet: the palette's own colours, so only an attached console stands out.
    paint(QColor(), QColor());
}

void InstanceIndicator::showAttached(const QString &address, RemoteGateway::State state, const QString &sentence)
{
    m_attached = true;
    m_badge->setText(tr("ATTACHED"));
    QString text = tr("%1 · %2").arg(address, stateName(state));
    // Connected needs no explanation; a failure must say what failed, right where the eye is.
    if (state != RemoteGateway::State::Connected && !sentence.isEmpty())
        text += QStringLiteral(" — ") + sentence;
    m_text->setText(text);
    m_text->setToolTip(sentence);
    m_button->setText(tr("Back to the embedded engine"));
    m_button->setToolTip(tr("Stop watching %1 and show the engine inside this console again").arg(address));
    const QColor background = stateBackground(state);
    paint(background, state == RemoteGateway::State::Connecting ? QColor(0x21, 0x21, 0x21) : QColor(Qt::white));
}

void InstanceIndicator::paint(const QColor &background, const QColor &text)
{
    m_background = background;
    // A style sheet rather than a palette: palette(...) follows a theme switched while running.
    if (!background.isValid()) {
        setStyleSheet(QStringLiteral("QFrame#instanceIndicator { background: palette(alternate-base); "
                                     "border-bottom: 1px solid palette(mid); }"));
        return;
    }
    setStyleSheet(QStringLiteral("QFrame#instanceIndicator { background: %1; }"
                                 "QFrame#instanceIndicator QLabel { color: %2; }")
                      .arg(background.name(), text.name()));
}

QString InstanceIndicator::text() const
{
    return m_badge->text() + QLatin1Char(' ') + m_text->text();
}

} // namespace sb
