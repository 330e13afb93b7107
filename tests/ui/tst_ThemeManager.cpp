#include "ConsoleStyle.h"
#include "ThemeManager.h"

#include <QtTest>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStyle>
#include <QTemporaryDir>

#include <cmath>

using namespace sb;

namespace {

// WCAG relative luminance and contrast ratio.
double luminance(const QColor &c)
{
    const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

} // namespace

class tst_ThemeManager : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("SwitchboardTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ThemeManager"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    }

    void darkAppliesADarkPaletteAndBack()
    {
        const QPalette system = QApplication::palette();
        ThemeManager themes;
        QSignalSpy changed(&themes, &ThemeManager::themeChanged);
        QLabel label(QStringLiteral("text"));

        label.show();
        themes.setTheme(ThemeManager::Theme::Dark);
        QCoreApplication::processEvents(); // the application palette reaches widgets by event
        QCOMPARE(changed.count(), 1);
        QVERIFY(ThemeManager::isDark(QApplication::palette()));
        QVERIFY(ThemeManager::isDark(label.palette())); // widgets follow the application palette
        QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));

        themes.setTheme(ThemeManager::Theme::Light);
        QCoreApplication::processEvents();
        QVERIFY(!ThemeManager::isDark(QApplication::palette()));
        QVERIFY(!ThemeManager::isDark(label.palette()));

        themes.setTheme(ThemeManager::Theme::System);
        QCOMPARE(QApplication::palette().color(QPalette::Window), system.color(QPalette::Window));
        QCOMPARE(QApplication::palette().color(QPalette::Text), system.color(QPalette::Text));
        QCOMPARE(changed.count(), 3);
    }

    void darkPaletteIsReadable()
    {
        const QPalette p = ThemeManager::darkPalette();
        QVERIFY(contrast(p.color(QPalette::WindowText), p.color(QPalette::Window)) >= 7.0);
        QVERIFY(contrast(p.color(QPalette::Text), p.color(QPalette::Base)) >= 7.0);
        QVERIFY(contrast(p.color(QPalette::ButtonText), p.color(QPalette::Button)) >= 7.0);
        QVERIFY(contrast(p.color(QPalette::HighlightedText), p.color(QPalette::Highlight)) >= 4.5);
        QVERIFY(contrast(p.color(QPalette::Link), p.color(QPalette::Base)) >= 4.5);
        QVERIFY(contrast(p.color(QPalette::PlaceholderText), p.color(QPalette::Window)) >= 4.5);
        // A disabled Save button can still be read.
        QVERIFY(contrast(p.color(QPalette::Disabled, QPalette::ButtonText), p.color(QPalette::Disabled, QPalette::Button)) >= 3.0);
        // The state colours (ARCHITECTURE.md, "Console conventions") are not part of the palette and must stay legible on both
        // backgrounds as badge fills, bands and error text.
        for (ChannelState s : {ChannelState::Closed, ChannelState::HalfOpen, ChannelState::Open, ChannelState::Ejected, ChannelState::Degraded}) {
            const double onDark = contrast(stateColor(s), p.color(QPalette::Base));
            const double onLight = contrast(stateColor(s), ThemeManager::lightPalette().color(QPalette::Base));
            QVERIFY2(onDark >= 1.9 && onLight >= 1.9, qPrintable(stateText(s)));
        }
    }

    void theChoiceIsPersisted()
    {
        {
            ThemeManager themes;
            themes.setTheme(ThemeManager::Theme::Dark);
        }
        ThemeManager next;
        QCOMPARE(next.theme(), ThemeManager::Theme::System); // nothing applied before restore()
        next.restore();
        QCOMPARE(next.theme(), ThemeManager::Theme::Dark);
        QVERIFY(ThemeManager::isDark(QApplication::palette()));
        QCOMPARE(QSettings().value(QStringLiteral("appearance/theme")).toString(), QStringLiteral("dark"));
        next.setTheme(ThemeManager::Theme::Light);
        QCOMPARE(QSettings().value(QStringLiteral("appearance/theme")).toString(), QStringLiteral("light"));
        QCOMPARE(ThemeManager::themeFromName(QStringLiteral("nonsense")), ThemeManager::Theme::System);
    }

private:
    QTemporaryDir m_settingsDir;
};

QTEST_MAIN(tst_ThemeManager)
#include "tst_ThemeManager.moc"
