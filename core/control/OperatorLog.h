#pragma once

#include "common/Clock.h"
#include "health/HealthEvent.h"

#include <QString>

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace sb {

// What the log tells an operator the engine did on its own (ARCHITECTURE.md, "The operator's
// log"): one line, at info or warning, for each circuit transition, pool change (degraded,
// ejected, re-admitted, drained), key cool-down or disable and provider rate-limit refusal, as it
// happens. Failovers and panic choices can come with every request during an outage, so they are
// counted per route and summarised at most once a window ("route gpt-4o: 12 failovers from A to B
// in the last 10 s (PROVIDER_DOWN, HTTP 503)"); the first one of a quiet route is written at once,
// so the start of an incident is never late. Budget events are not written here: the proxy writes
// them where it counts the spend. Keys appear only as the events name them, masked.
class OperatorLog {
public:
    explicit OperatorLog(const Clock &clock, Clock::Duration window = std::chrono::seconds(10));
    ~OperatorLog();

    // Thread-safe; called on the thread that caused the event. A failover or panic costs a lock and
    // a counter, except the first of a window, which writes its line.
    void note(const HealthEvent &event);

    // The timer that writes the summaries: it checks every second, on the thread that starts it
    // (the control thread). stop(), on that thread, also writes what the open windows counted so far.
    void start();
    void stop();
    // Writes the summary of every route whose window has passed (all of them with `everything`);
    // what the timer calls.
    void flush(bool everything = false);

private:
    enum class Kind { Failover, Panic };
    // A route's window is open from the line that began it until one passes with nothing to say.
    struct Window {
        Clock::TimePoint since{};
        // What happened since the last line. Failover: (from, to, cause) → requests;
        // Panic: ("", the channel used, "") → requests.
        std::map<std::tuple<QString, QString, QString>, int> counts;
    };
    QString summary(const QString &route, Kind kind, const Window &window, Clock::TimePoint now) const;

    const Clock &m_clock;
    const Clock::Duration m_window;
    std::mutex m_mutex;
    std::map<std::pair<QString, Kind>, Window> m_windows;
    std::unique_ptr<Timer> m_timer;
};

} // namespace sb
