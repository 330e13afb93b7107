#pragma once

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace sb {

class HistoryReader;

// Lives on the history thread and owns that thread's HistoryReader (a reader connection belongs to
// the thread that opened it). It only runs jobs; HistoryService hands them in and the answers back.
class HistoryQueryWorker : public QObject {
    Q_OBJECT
public:
    explicit HistoryQueryWorker(QString dbPath);
    ~HistoryQueryWorker() override;

    // Runs on the history thread. Opens the reader on first use; false (and the reason in
    // lastError()) when the database cannot be opened, and the job is not run.
    bool run(const std::function<void(HistoryReader &)> &job);
    QString lastError() const { return m_lastError; }

private:
    QString m_dbPath;
    std::unique_ptr<HistoryReader> m_reader;
    QString m_lastError;
};

} // namespace sb
