#pragma once

#include "telemetry/HistoryRecords.h"

#include <QTextBrowser>

namespace sb {

// The Requests page's right pane: one request with each attempt (channel, outcome, why it failed
// over, time spent), what the client got, TTFT, tokens and cost. Every free text passes
// RequestFormat::redact, so no key can reach the screen through a quoted upstream error.
class RequestInspector : public QTextBrowser {
    Q_OBJECT
public:
    explicit RequestInspector(QWidget *parent = nullptr);

    void showRequest(const RequestRecord &record);
    void clearRequest();
    qint64 requestRowId() const { return m_rowId; }

    static QString html(const RequestRecord &record);

private:
    qint64 m_rowId = 0;
};

} // namespace sb
