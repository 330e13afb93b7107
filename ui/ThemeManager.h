#pragma once

#include <QObject>
#include <QPalette>
#include <QString>

class QSettings;

namespace sb {

// The console's light and dark palettes, and "system" (whatever the desktop gave the application
// at start-up — Qt 6.4 cannot ask the desktop for its colour scheme). The choice is a per-user,
// per-desktop preference, not engine configuration, so it lives in QSettings ("appearance/theme")
// rather than in the database a headless service shares. State colours (ARCHITECTURE.md, "Console conventions") are not part of the
// palette and stay the same in every theme.
class ThemeManager : public QObject {
    Q_OBJECT
public:
    enum class Theme { System, Light, Dark };
    Q_ENUM(Theme)

    // Remembers the application's current style and palette as "system". Call after QApplication
    // exists and before any theme is applied.
    explicit ThemeManager(QObject *parent = nullptr);

    Theme theme() const { return m_theme; }
    // Applies the stored choice (default: system).
    void restore();
    // Applies and stores.
    void setTheme(Theme theme);
    // True when the palette now in use has a dark window (System may be dark too).
    static bool isDark(const QPalette &palette);

    static QPalette lightPalette();
    static QPalette darkPalette();
    static QString themeName(Theme theme);           // "system", "light", "dark" (stored form)
    static Theme themeFromName(const QString &name); // unknown → System

signals:
    void themeChanged(sb::ThemeManager::Theme theme);

private:
    void apply(Theme theme);

    Theme m_theme = Theme::System;
    QString m_systemStyle;
    QPalette m_systemPalette;
};

} // namespace sb
