// HostResolver: one lookup per name however many ask, answers kept and refreshed beside their use,
// a stale answer standing in while lookups fail, answers on the asking thread. The name service is
// outside the machine, so most cases answer through a scripted lookup; the system's is asked for
// localhost.

#include "FakeClock.h"
#include "net/HostResolver.h"

#include <QSemaphore>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <mutex>

using namespace std::chrono_literals;
using sb::HostResolver;
using sb::ResolverInbox;
using sb::test::FakeClock;

namespace {

// A name service whose answers the test sets; each lookup can be held until released.
class ScriptedNames {
public:
    HostResolver::Lookup lookup()
    {
        return [this](const QString &host) {
            m_asked.fetch_add(1);
            if (m_holding)
                m_release.acquire();
            std::lock_guard lock(m_mutex);
            HostResolver::Answer answer;
            if (m_address.isNull()) {
                answer.error = QStringLiteral("Could not resolve host: %1").arg(host);
                answer.nameUnknown = m_nameUnknown;
            } else {
                answer.addresses = {m_address};
            }
            return answer;
        };
    }
    void answer(const QString &address)
    {
        std::lock_guard lock(m_mutex);
        m_address = address.isEmpty() ? QHostAddress() : QHostAddress(address);
    }
    void fail(bool nameUnknown)
    {
        std::lock_guard lock(m_mutex);
        m_address = QHostAddress();
        m_nameUnknown = nameUnknown;
    }
    void hold() { m_holding = true; }
    void release(int lookups) { m_release.release(lookups); }
    int asked() const { return m_asked.load(); }

private:
    std::mutex m_mutex;
    QHostAddress m_address;
    bool m_nameUnknown = true;
    std::atomic<bool> m_holding{false};
    QSemaphore m_release;
    std::atomic<int> m_asked{0};
};

struct Delivery {
    int count = 0;
    HostResolver::Answer answer;
    QThread *thread = nullptr;
};

HostResolver::Done recordInto(Delivery &delivery)
{
    return [&delivery](const HostResolver::Answer &answer) {
        ++delivery.count;
        delivery.answer = answer;
        delivery.thread = QThread::currentThread();
    };
}

// A resolver that knows `host` as 192.0.2.7: asked once, its answer waited for.
struct KnownName {
    explicit KnownName(const FakeClock &clock)
        : resolver(clock, names.lookup(), 60s, 10min)
    {
        names.answer(QStringLiteral("192.0.2.7"));
        answered = resolver.resolve(host, inbox, recordInto(first)).has_value()
                   || QTest::qWaitFor([this] { return first.count == 1; });
    }
    ~KnownName() { inbox->close(); } // before the receiver goes; the resolver may still be answering
    const QString host = QStringLiteral("api.example.com");
    Delivery first;
    bool answered = false;
    ScriptedNames names;
    HostResolver resolver;
    QObject receiver;
    std::shared_ptr<ResolverInbox> inbox = std::make_shared<ResolverInbox>(&receiver);
};

QString firstAddress(const HostResolver::Answer &answer)
{
    return answer.addresses.empty() ? QString() : answer.addresses.front().toString();
}

} // namespace

class tst_HostResolver : public QObject {
    Q_OBJECT
private slots:
    void manyAskingForOneNameShareOneLookupAndHearOnTheirThread()
    {
        FakeClock clock;
        ScriptedNames names;
        names.answer(QStringLiteral("192.0.2.7"));
        names.hold();
        HostResolver resolver(clock, names.lookup());
        QObject receiver;
        auto inbox = std::make_shared<ResolverInbox>(&receiver);
        Delivery first, second;
        QVERIFY(!resolver.resolve(QStringLiteral("api.example.com"), inbox, recordInto(first)));
        QVERIFY(!resolver.resolve(QStringLiteral("API.example.com"), inbox, recordInto(second))); // names are case-blind
        names.release(1);
        QTRY_COMPARE(first.count, 1);
        QTRY_COMPARE(second.count, 1);
        QCOMPARE(names.asked(), 1);
        QCOMPARE(resolver.lookupsStarted(), 1u);
        QCOMPARE(firstAddress(first.answer), QStringLiteral("192.0.2.7"));
        QCOMPARE(firstAddress(second.answer), QStringLiteral("192.0.2.7"));
        QCOMPARE(first.thread, QThread::currentThread());

        // Known now: answered at once, without a lookup.
        Delivery never;
        const auto known = resolver.resolve(QStringLiteral("api.example.com"), inbox, recordInto(never));
        QVERIFY(known);
        QCOMPARE(firstAddress(*known), QStringLiteral("192.0.2.7"));
        QCOMPARE(resolver.lookupsStarted(), 1u);
    }

    void aStaleAnswerIsUsedAtOnceWhileANewLookupRunsBesideIt()
    {
        FakeClock clock;
        KnownName known(clock);
        QVERIFY(known.answered);
        QCOMPARE(known.names.asked(), 1);

        clock.advance(59s);
        Delivery unused;
        QVERIFY(known.resolver.resolve(known.host, known.inbox, recordInto(unused)));
        QCOMPARE(known.resolver.lookupsStarted(), 1u); // still fresh

        known.names.answer(QStringLiteral("192.0.2.8")); // the provider moved
        clock.advance(2s);
        const auto stale = known.resolver.resolve(known.host, known.inbox, recordInto(unused));
        QVERIFY(stale);
        QCOMPARE(firstAddress(*stale), QStringLiteral("192.0.2.7"));
        QCOMPARE(known.resolver.lookupsStarted(), 2u);
        QTRY_COMPARE(known.resolver.lookupsRunning(), 0);
        const auto fresh = known.resolver.resolve(known.host, known.inbox, recordInto(unused));
        QVERIFY(fresh);
        QCOMPARE(firstAddress(*fresh), QStringLiteral("192.0.2.8"));
        QCOMPARE(known.resolver.lookupsStarted(), 2u);
        QCOMPARE(unused.count, 0);
    }

    // DNS failing at 3 a.m. does not take down a provider whose address was known: the last answer
    // stands in for up to usableFor; past that, a lookup's failure is the caller's.
    void aFailedLookupLeavesTheLastAnswerInPlaceUntilItIsTooOld()
    {
        FakeClock clock;
        KnownName known(clock);
        QVERIFY(known.answered);
        QCOMPARE(known.names.asked(), 1);

        known.names.fail(/*nameUnknown=*/false);
        Delivery unused;
        for (int minute = 1; minute < 10; ++minute) {
            clock.advance(60s);
            const auto answer = known.resolver.resolve(known.host, known.inbox, recordInto(unused));
            QVERIFY2(answer, qPrintable(QStringLiteral("minute %1").arg(minute)));
            QCOMPARE(firstAddress(*answer), QStringLiteral("192.0.2.7"));
            QTRY_COMPARE(known.resolver.lookupsRunning(), 0);
            QCOMPARE(known.names.asked(), 1 + minute); // a refresh each time, each failing
        }

        clock.advance(61s); // ten minutes and a second since the last answer
        Delivery late;
        QVERIFY(!known.resolver.resolve(known.host, known.inbox, recordInto(late)));
        QTRY_COMPARE(late.count, 1);
        QVERIFY(late.answer.addresses.empty());
        QVERIFY(!late.answer.nameUnknown);
        QVERIFY(late.answer.error.contains(known.host));
        QCOMPARE(unused.count, 0);
    }

    void aNameWithNoAddressIsSaidSoAndLookedUpAgainNextTime()
    {
        FakeClock clock;
        ScriptedNames names;
        names.fail(/*nameUnknown=*/true);
        HostResolver resolver(clock, names.lookup());
        QObject receiver;
        auto inbox = std::make_shared<ResolverInbox>(&receiver);
        Delivery first;
        QVERIFY(!resolver.resolve(QStringLiteral("typo.example.com"), inbox, recordInto(first)));
        QTRY_COMPARE(first.count, 1);
        QVERIFY(first.answer.nameUnknown);
        QVERIFY(first.answer.addresses.empty());

        names.answer(QStringLiteral("192.0.2.9")); // the record was added
        Delivery second;
        QVERIFY(!resolver.resolve(QStringLiteral("typo.example.com"), inbox, recordInto(second)));
        QTRY_COMPARE(second.count, 1);
        QCOMPARE(firstAddress(second.answer), QStringLiteral("192.0.2.9"));
        QCOMPARE(names.asked(), 2);
    }

    // An engine going away closes its inbox: an answer that comes later is not posted, and one
    // posted already goes with the receiver.
    void aClosedInboxHearsNothing()
    {
        FakeClock clock;
        ScriptedNames names;
        names.answer(QStringLiteral("192.0.2.7"));
        names.hold();
        HostResolver resolver(clock, names.lookup());
        Delivery late, posted;
        {
            QObject receiver;
            auto inbox = std::make_shared<ResolverInbox>(&receiver);
            QVERIFY(!resolver.resolve(QStringLiteral("late.example.com"), inbox, recordInto(late)));
            inbox->close();
        }
        auto *receiver = new QObject;
        auto inbox = std::make_shared<ResolverInbox>(receiver);
        QVERIFY(!resolver.resolve(QStringLiteral("posted.example.com"), inbox, recordInto(posted)));
        names.release(2);
        // Both answered (one dropped, one posted), waited for without running the event loop.
        for (int i = 0; i < 2000 && resolver.lookupsRunning() > 0; ++i)
            QThread::msleep(5);
        QCOMPARE(resolver.lookupsRunning(), 0);
        inbox->close();
        delete receiver; // as the engine goes: its inbox closed, then the object
        QCoreApplication::processEvents();
        QCOMPARE(late.count, 0);
        QCOMPARE(posted.count, 0);
        QCOMPARE(names.asked(), 2);
    }

    void theSystemResolvesLocalhost()
    {
        const HostResolver::Answer answer = HostResolver::systemLookup(QStringLiteral("localhost"));
        QVERIFY2(!answer.addresses.empty(), qPrintable(answer.error));
        QVERIFY(answer.addresses.front().isLoopback());
        // IPv4 before IPv6, whatever order the system gave.
        bool seenV6 = false;
        for (const QHostAddress &address : answer.addresses) {
            if (address.protocol() == QAbstractSocket::IPv6Protocol)
                seenV6 = true;
            else
                QVERIFY2(!seenV6, "an IPv4 address after an IPv6 one");
        }
    }
};

QTEST_GUILESS_MAIN(tst_HostResolver)
#include "tst_HostResolver.moc"
