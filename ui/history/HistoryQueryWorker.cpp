#include "history/HistoryQueryWorker.h"

#include "store/HistoryReader.h"

namespace sb {

HistoryQueryWorker::HistoryQueryWorker(QString dbPath) : m_dbPath(std::move(dbPath)) {}

HistoryQueryWorker::~HistoryQueryWorker() = default;

bool HistoryQueryWorker::run(const std::function<void(HistoryReader &)> &job)
{
    if (!m_reader) {
        // Opened here, not in the constructor: the worker is built on the GUI thread and moved.
        auto reader = std::make_unique<HistoryReader>(m_dbPath);
        QString error;
        if (!reader->open(&error)) {
            m_lastError = error.isEmpty() ? QStringLiteral("the history database could not be opened") : error;
            return false;
        }
        m_reader = std::move(reader);
    }
    job(*m_reader);
    return true;
}

} // namespace sb
