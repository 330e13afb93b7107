#pragma once

#include "sim/DrillReport.h"
#include "sim/EmbeddedDrill.h"
#include "DrillVerdict.h"
#include "sim/Scenario.h"

#include <QPointer>
#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableWidget;
class QThread;

namespace sb {

class Gateway;

// The Drills page: the shipped scenarios, a time scale, Run / Cancel, progress
// while the drill runs and its report at the end, each figure beside its target. A drill runs
// against the embedded engine through EmbeddedDrill on a thread of its own (the GUI thread only
// receives queued progress): its fake providers on free loopback ports, a drill configuration
// applied live to the Gateway, load at the proxy's own port; the previous configuration comes back
// when it ends or is cancelled. Nothing is saved to the configuration store.
class DrillsPage : public QWidget {
    Q_OBJECT
public:
    explicit DrillsPage(QWidget *parent = nullptr);
    ~DrillsPage() override;

    // Without a gateway the page lists the drills and explains why Run is disabled. The gateway
    // must outlive the page or the page must be destroyed (or shutDown()) first.
    void attach(Gateway *gateway);

    QStringList drillNames() const;
    bool isRunning() const { return m_thread != nullptr; }
    // Selects a drill and runs it (the first-start offer). False with a sentence in *error when it
    // cannot start (no engine, already running, unknown drill).
    bool runDrill(const QString &name, double timeScale, QString *error = nullptr);

    // For tests and screenshots.
    QString statusText() const;
    QString progressText() const;
    QString verdictText() const;
    QTableWidget *figuresTable() const { return m_figures; }
    QTableWidget *channelsTable() const { return m_channelTable; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *cancelButton() const { return m_cancel; }
    QComboBox *timeScaleBox() const { return m_timeScale; }
    QListWidget *drillList() const { return m_list; }

public slots:
    void cancel();
    // Ends a running drill and waits for it (application shutdown: the Gateway is about to go).
    void shutDown();

signals:
    // The drill's configuration is live in the engine (e.g. refresh a page that shows the config).
    void drillStarted(const QString &name);
    // The previous configuration is back (also after a drill that could not start).
    void drillFinished(const QString &name, bool cancelled);

private:
    void showDetails(int row);
    void onStarted();
    void onFailed(const QString &error);
    void onProgress(const sim::DrillProgress &progress);
    void onFinished(const sim::DrillReport &report, bool cancelled);
    void showReport(const sim::DrillReport &report);
    void clearReport();
    void endThread();
    void updateButtons();

    QPointer<Gateway> m_gateway;
    std::vector<sim::Scenario> m_drills;
    QListWidget *m_list = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_description = nullptr;
    QComboBox *m_timeScale = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_progressText = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_verdict = nullptr;
    QTableWidget *m_figures = nullptr;
    QTableWidget *m_channelTable = nullptr;

    QThread *m_thread = nullptr;
    sim::EmbeddedDrill *m_drill = nullptr; // lives on m_thread
    QString m_running;                     // the running drill's name
    double m_runningScale = 1.0;
};

} // namespace sb
