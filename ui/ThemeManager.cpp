#include "ThemeManager.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

namespace sb {

namespace {
const QString kSettingsKey = QStringLiteral("appearance/theme");
const QString kFusion = QStringLiteral("Fusion");
} // namespace

ThemeManager::ThemeManager(QObject *parent) : QObject(parent)
{
    if (QApplication::style())
        m_systemStyle = QApplication::style()->name();
    m_systemPalette = QApplication::palette();
}

void ThemeManager::restore()
{
    QSettings settings;
    apply(themeFromName(settings.value(kSettingsKey).toString()));
}

void ThemeManager::setTheme(Theme theme)
{
    QSettings settings;
    settings.setValue(kSettingsKey, themeName(theme));
    apply(theme);
}

void ThemeManager::apply(Theme theme)
{
    m_theme = theme;
    if (theme == Theme::System) {
        if (!m_systemStyle.isEmpty() && QApplication::style()->name() != m_systemStyle)
            QApplication::setStyle(QStyleFactory::create(m_systemStyle));
        QApplication::setPalette(m_systemPalette);
    } else {
        // Fusion draws every control from the palette; native styles (e.g. a GTK theme) may paint
        // their own light surfaces under a dark palette and leave light text on light buttons.
        if (QApplication::style()->name().compare(kFusion, Qt::CaseInsensitive) != 0)
            QApplication::setStyle(QStyleFactory::create(kFusion));
        QApplication::setPalette(theme == Theme::Dark ? darkPalette() : lightPalette());
    }
    emit themeChanged(theme);
}

bool ThemeManager::isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

QPalette ThemeManager::lightPalette()
{
    QStyle *fusion = QStyleFactory::create(kFusion);
    QPalette p = fusion ? fusion->standardPalette() : QPalette();
    delete fusion;
    return p;
}

QPalette ThemeManager::darkPalette()
{
    // Text on window and base stays above 10:1 contrast; disabled text is dimmed but still legible
    // (about 4.5:1), so a disabled Save button can still be read.
    const QColor window(0x20, 0x22, 0x26);
    const QColor base(0x18, 0x1a, 0x1d);
    const QColor text(0xe6, 0xe6, 0xe6);
    const QColor dimmed(0x8a, 0x8e, 0x94);
    const QColor button(0x2a, 0x2d, 0x32);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x29, 0x2e));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x8a, 0x80));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xb5));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x9d, 0xdb));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3e, 0x44));
    p.setColor(QPalette::Midlight, QColor(0x32, 0x35, 0x3a));
    p.setColor(QPalette::Mid, QColor(0x50, 0x54, 0x5a));
    p.setColor(QPalette::Dark, QColor(0x10, 0x11, 0x13));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::PlaceholderText, QColor(0xa0, 0xa4, 0xaa));
    p.setColor(QPalette::ToolTipBase, button);
    p.setColor(QPalette::ToolTipText, text);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, dimmed);
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Button, QColor(0x24, 0x26, 0x2a));
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x40, 0x44, 0x4a));
    return p;
}

QString ThemeManager::themeName(Theme theme)
{
    switch (theme) {
    case Theme::System: return QStringLiteral("system");
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

ThemeManager::Theme ThemeManager::themeFromName(const QString &name)
{
    if (name == u"light")
        return Theme::Light;
    if (name == u"dark")
        return Theme::Dark;
    return Theme::System;
}

} // namespace sb
