#pragma once

#include <QString>

class QLabel;

namespace sb {

// The red line under a field (ARCHITECTURE.md, "Console conventions": validation is inline, Save disabled, never a modal error after
// the fact), and its quieter cousins. The colour follows the palette so it stays readable on dark
// themes; an empty text hides the label so valid forms carry no gaps.
class InlineMessage {
public:
    enum class Kind { Error, Warning, Info, Success };
    static void show(QLabel *label, const QString &text, Kind kind = Kind::Error);
    static void prepare(QLabel *label); // word wrap, hidden until there is something to say
};

} // namespace sb
