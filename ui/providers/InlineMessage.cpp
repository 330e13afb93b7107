#include "providers/InlineMessage.h"

#include <QLabel>
#include <QPalette>

namespace sb {

namespace {

QColor colorFor(InlineMessage::Kind kind, bool dark)
{
    // The console's state colours on light backgrounds; lighter tints of the same hues on dark ones.
    switch (kind) {
    case InlineMessage::Kind::Error: return dark ? QColor(0xef, 0x9a, 0x9a) : QColor(0xc6, 0x28, 0x28);
    case InlineMessage::Kind::Warning: return dark ? QColor(0xff, 0xcc, 0x80) : QColor(0xb2, 0x4d, 0x00);
    case InlineMessage::Kind::Success: return dark ? QColor(0xa5, 0xd6, 0xa7) : QColor(0x2e, 0x7d, 0x32);
    case InlineMessage::Kind::Info: break;
    }
    return {};
}

} // namespace

void InlineMessage::prepare(QLabel *label)
{
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setVisible(false);
}

void InlineMessage::show(QLabel *label, const QString &text, Kind kind)
{
    label->setText(text);
    label->setVisible(!text.isEmpty());
    const bool dark = label->palette().color(QPalette::Window).lightness() < 128;
    QPalette palette = label->palette();
    const QColor color = colorFor(kind, dark);
    palette.setColor(QPalette::WindowText, color.isValid() ? color : label->parentWidget()
                                                                         ? label->parentWidget()->palette().color(QPalette::WindowText)
                                                                         : palette.color(QPalette::WindowText));
    label->setPalette(palette);
    label->setProperty("messageKind", int(kind)); // for tests and style sheets
}

} // namespace sb
