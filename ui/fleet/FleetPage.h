#pragma once

#include "fleet/FleetReport.h"

#include <QWidget>

class QLabel;
class QStackedLayout;
class QTableWidget;

namespace sb {

// The Fleet page: the instances the shown instance's Redis lists (id, version, configuration,
// last seen, requests/s, open circuits; one that runs another configuration is flagged) and the
// channel states that instance holds, which are the fleet's merged view: what it met itself and
// what it adopted from the others. Without a fleet it says how to make one.
class FleetPage : public QWidget {
    Q_OBJECT
public:
    explicit FleetPage(QWidget *parent = nullptr);

    void showReport(const FleetReport &report);
    // Back to "nothing heard yet" (the source changed).
    void clear();

    const FleetReport &report() const { return m_report; }
    QTableWidget *instanceTable() const { return m_instances; }
    QTableWidget *channelTable() const { return m_channels; }
    QString summaryText() const;

private:
    void fillInstances();
    void fillChannels();

    FleetReport m_report;
    QStackedLayout *m_stack = nullptr;
    QLabel *m_empty = nullptr;
    QWidget *m_content = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_configNotice = nullptr;
    QTableWidget *m_instances = nullptr;
    QLabel *m_instancesNote = nullptr;
    QTableWidget *m_channels = nullptr;
};

} // namespace sb
