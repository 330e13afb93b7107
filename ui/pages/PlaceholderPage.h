#pragma once

#include <QWidget>

// A page whose content arrives with a later part of the console: a title and one sentence telling
// the user what will be shown there.
class PlaceholderPage : public QWidget {
    Q_OBJECT
public:
    PlaceholderPage(const QString &title, const QString &explanation, QWidget *parent = nullptr);
};
