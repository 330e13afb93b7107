#pragma once

#include <QFrame>

class QPushButton;

namespace sb {

// The first-start offer: a banner for the Overview page when the demo configuration
// runs, with one button that asks for the launch-day drill. It only emits; MainWindow switches to
// the Drills page and starts the drill there. Dismissing hides it until the console restarts.
class DrillOffer : public QFrame {
    Q_OBJECT
public:
    explicit DrillOffer(QWidget *parent = nullptr);
    QPushButton *runButton() const { return m_run; }

signals:
    void runRequested(const QString &drill, double timeScale);
    void dismissed();

private:
    QPushButton *m_run = nullptr;
};

} // namespace sb
