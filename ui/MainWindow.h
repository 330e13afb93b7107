#pragma once

#include <QMainWindow>

class QListWidget;
class QStackedWidget;
class QLabel;

// The console's frame: a sidebar of pages, the page stack and the status bar with the proxy
// address. Pages read engine snapshots delivered by queued signals; the window never calls into the
// engine directly.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);

    QStringList pageNames() const;
    void showPage(int index);
    // Renders every page to DIR/<page>.png (README screenshots, UI tests). False if one failed.
    bool saveScreenshots(const QString &directory);

private:
    void addPage(const QString &name, QWidget *page);
    void buildStatusBar();

    QListWidget *m_sidebar = nullptr;
    QStackedWidget *m_pages = nullptr;
    QLabel *m_proxyAddress = nullptr;
    QLabel *m_requestRate = nullptr;
    QLabel *m_successRate = nullptr;
    QLabel *m_ttft = nullptr;
    QLabel *m_incidents = nullptr;
};
