#pragma once

#include <QColor>
#include <QFrame>

class QLabel;

namespace sb {

// A strip across the top of the console with a warning icon and a few lines of rich text: the
// frame the console's banners share. Fixed colours (a light wash, a solid edge, dark text), so it
// reads the same on the light and the dark palette; the icon says "warning", never colour alone.
// Hidden until it has something to say.
class WarningStrip : public QFrame {
    Q_OBJECT
public:
    struct Colours {
        QColor wash;
        QColor edge;
        QColor text;
    };
    // The frame's and its text label's object names (for tests and style sheets).
    WarningStrip(const QString &name, const QString &textName, const Colours &colours, QWidget *parent = nullptr);

    QString text() const;

protected:
    void showHtml(const QString &html); // shows the strip
    void clearText();                   // hides it

private:
    QLabel *m_text = nullptr;
};

} // namespace sb
