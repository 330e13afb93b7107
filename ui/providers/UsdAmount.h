#pragma once

#include <QString>

namespace sb {

// US dollar amounts as the price and budget fields take and show them. Typed text is kept as typed
// until it is saved, so a half-typed "2." or a mistaken "-1" stays on screen with its message
// instead of being silently corrected.
class UsdAmount {
public:
    enum class Parse { Ok, Empty, NotANumber, Negative };

    // Accepts "2.5", "2.50", "$2.50", "US$ 2.50", and the user's locale ("2,50" where that is the
    // decimal mark). Empty text is Empty with *value 0 (the fields read it as "none").
    static Parse parse(const QString &text, double *value);
    // "$3.12"; amounts under a dollar keep up to four decimals so a test route's "$0.0004" is not "$0.00".
    static QString format(double usd);
    // How a stored amount is put back into an edit field: shortest exact form, "" for 0.
    static QString editText(double usd);
};

} // namespace sb
